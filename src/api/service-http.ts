/**
 * The client's HTTP layer: one undici agent, bearer auth, error answers turned into typed errors
 * (scrubbed of secrets, with base-URL hints), and every attempt through the shared throttle gate.
 */
import type { Dispatcher } from 'undici';
import { type Answerer, answerHint } from './answer-hints.js';
import { dispatcherFor } from './dispatcher.js';
import { proxyFor, proxySecrets, proxyShown } from './proxy.js';
import { request } from './undici-agent.js';
import { requestHeaders } from './request-headers.js';
import { lowSpeedLimit } from './low-speed.js';
import { DEFAULT_CONCURRENCY, DEFAULT_MAX_THROTTLE_WAIT_MS } from '../settings/settings.js';
import type { ClientOptions } from './client.js';
import { readErrorBody } from './error-body.js';
import { unexpectedAnswerHint } from './base-url-hints.js';
import { errorForStatus, InvalidResponseError } from './errors.js';
import type { MultipartBody } from './multipart.js';
import {
  isRetryableByDefault,
  parseRetryAfter,
  RETRYABLE_STATUSES,
  RetryableStatusError,
  withRetries,
} from './retry.js';
import { type Scrub, scrubberFor, scrubHeaders, urlSecret } from './scrub.js';
import { hintNamingSource } from './source-hints.js';
import { Throttle } from './throttle.js';
import { decodedResponse } from './content-encoding.js';
import { headerValue, networkError } from './transport.js';
import { formatWait, throttleStretchLine, throttleWaitLine, waitIsTold } from './wait-text.js';

/** How one request is retried (see RetryOptions). */
export interface RequestRetry {
  signal?: AbortSignal | undefined;
  stopWaiting?: AbortSignal | undefined;
  shouldRetry?: (error: unknown) => boolean;
  toService?: boolean;
  /**
   * Whether it takes a slot of the shared window (the default). Either way it waits for the shared
   * gate, and its throttle answers are ridden out there, not counted against its retries.
   */
  holdsSlot?: boolean;
}

export class ServiceHttp {
  readonly #options: ClientOptions;
  readonly #agent: Dispatcher.ComposedDispatcher;
  readonly #throttle: Throttle;
  /** Removes the client's secrets from a string that came from the service. */
  readonly scrub: Scrub;
  /** One "still trying" line per outage, not one per request. */
  #slowConnectNoticed = false;

  constructor(options: ClientOptions) {
    this.#options = options;
    this.#agent = dispatcherFor(
      {
        connectTimeout: Math.min(options.timeoutMs, 30_000),
        headersTimeout: options.timeoutMs,
        bodyTimeout: options.timeoutMs,
      },
      options.proxies,
    ).compose(lowSpeedLimit(options.timeoutMs));
    this.#throttle = new Throttle({
      clock: options.clock,
      maxConcurrency: options.concurrency ?? DEFAULT_CONCURRENCY,
      maxWaitMs: options.maxThrottleWaitMs ?? DEFAULT_MAX_THROTTLE_WAIT_MS,
    });
    // A base URL with credentials is refused before a client is built; scrubbed all the same.
    const { username, password } = options.baseUrl;
    this.scrub = scrubberFor([
      options.token,
      urlSecret(password),
      urlSecret(username),
      ...proxySecrets(options.proxies),
    ]);
  }

  /** The client's scrubber, with `secrets` scrubbed too. */
  scrubAlso(secrets: readonly string[]): Scrub {
    if (secrets.length === 0) return this.scrub;
    const more = scrubberFor(secrets);
    return (text) => more(this.scrub(text));
  }

  get options(): ClientOptions {
    return this.#options;
  }

  get baseUrl(): URL {
    return this.#options.baseUrl;
  }

  async close(): Promise<void> {
    await this.#agent.close();
  }

  url(path: string): URL {
    const base = this.#options.baseUrl;
    const url = new URL(base.href);
    url.pathname = `${base.pathname.replace(/\/+$/, '')}${path}`;
    return url;
  }

  async send(
    method: Dispatcher.HttpMethod,
    url: URL,
    what: string,
    init: {
      body?: string;
      form?: MultipartBody;
      json?: boolean;
      authorized: boolean;
      signal?: AbortSignal | undefined;
      /** Who answers, where not the service (a signed link's host): named by the errors of its answer. */
      from?: Answerer;
    },
  ): Promise<Dispatcher.ResponseData> {
    const headers = requestHeaders({
      userAgent: this.#options.userAgent,
      token: init.authorized ? this.#options.token : undefined,
      json: init.json,
      form: init.form,
    });
    const route = proxyFor(url, this.#options.proxies);
    const through = route ? ` (through the proxy ${proxyShown(route.proxy)})` : '';
    this.#options.log.debug(
      `${method} ${init.authorized ? url.href : `${url.origin}${url.pathname}`}${through}`,
    );
    let response: Dispatcher.ResponseData;
    try {
      response = await request(url, {
        method,
        headers,
        body: init.form?.body ?? init.body,
        dispatcher: this.#agent,
        signal: init.signal,
      });
    } catch (error) {
      throw networkError(error, what, url, route, init.from?.other, this.#options.baseUrlSource);
    }
    this.#options.log.debug(`${method} ${url.pathname} → ${response.statusCode}`);
    this.#slowConnectNoticed = false;
    // A signed link's host is not the service: its answers say nothing of the service's URL.
    if (!init.from) this.#throttle.onHeard();
    // Outside the catch: a coding vredact cannot decode is the answer's fault, not the network's.
    return decodedResponse(
      { ...response, headers: scrubHeaders(response.headers, this.scrub) },
      what,
      init.from,
    );
  }

  /**
   * Reads an error answer and throws its typed error, marked retryable where the status allows.
   * `link`: the signed link's host that answered, not the service; `uploadBytes`: an upload's file size.
   */
  async fail(
    response: Dispatcher.ResponseData,
    url: URL,
    what: string,
    retryable: ReadonlySet<number>,
    link?: Answerer,
    uploadBytes?: number,
  ): Promise<never> {
    const body = await readErrorBody(response.body);
    const scrub = link ? this.scrubAlso(link.secrets) : this.scrub;
    const hint = answerHint(response.statusCode, {
      url,
      baseUrl: this.#options.baseUrl,
      signedLink: link !== undefined,
      location: headerValue(response.headers, 'location'),
      scrub,
      tokenSource: this.#options.tokenSource,
      baseUrlSource: this.#options.baseUrlSource,
      uploadBytes,
    });
    const unexpected = unexpectedAnswerHint(this.#options.baseUrlSource);
    const error = errorForStatus(response.statusCode, what, body, scrub, hint, link?.name, unexpected);
    if (retryable.has(response.statusCode)) {
      throw new RetryableStatusError(
        error,
        parseRetryAfter(response.headers['retry-after'], this.#options.clock.now()),
      );
    }
    throw error;
  }

  /**
   * Runs `attempt` with the client's retry rule, through its gate. `toService` false: the request
   * goes elsewhere (a signed URL), so its connect failures are no outage of the service. Its errors
   * leave with hints that name where the base URL came from.
   */
  retry<T>(what: string, attempt: () => Promise<T>, how: RequestRetry = {}): Promise<T> {
    const { log, maxRetries, clock, baseUrlSource } = this.#options;
    return withRetries(attempt, {
      baseUrlSource,
      maxRetries,
      clock,
      signal: how.signal,
      stopWaiting: how.stopWaiting,
      shouldRetry: how.shouldRetry ?? isRetryableByDefault,
      what,
      toService: how.toService ?? true,
      throttle: this.#throttle,
      holdsSlot: how.holdsSlot !== false,
      onRetry: (error, attempt, delayMs) => {
        // The client's errors already begin with what was being done: said once.
        const message = (error as Error).message;
        const said = message.startsWith(`${what}: `) ? message : `${what}: ${message}`;
        log.debug(
          delayMs === undefined
            ? `${said}; waiting at the gate (window ${this.#throttle.window})`
            : `${said}; retry ${attempt}/${maxRetries} in ${formatWait(delayMs)}`,
        );
      },
      onThrottleWait: (error, waitMs, stretchTold) => {
        // At a terminal a silent wait of seconds reads as a hang.
        if (waitIsTold(waitMs, stretchTold))
          log.info(throttleWaitLine(error.status, waitMs, (error.retryAfterMs ?? 0) > 0));
      },
      // Waits of a second each are not said, so half an hour of them would pass in silence.
      onThrottleStretch: (error, lastedMs) =>
        log.info(throttleStretchLine(error.status, lastedMs, this.#throttle.maxWaitMs)),
      onSlowConnect: (error) => {
        if (this.#slowConnectNoticed) return;
        this.#slowConnectNoticed = true;
        log.info(`${(error as Error).message}; still trying (up to ${maxRetries} retries)…`);
      },
    }).catch((error: unknown) => {
      throw hintNamingSource(error, baseUrlSource);
    });
  }

  /**
   * From now on, an outage of the service (it answered, then cannot be connected to) pauses every
   * request for up to `maxWaitMs`, as a throttle does, instead of each using up its retries. For
   * batches: one command's request keeps failing after its retries.
   */
  rideOutOutages(maxWaitMs: number): void {
    const { log } = this.#options;
    this.#throttle.rideOutOutages({
      maxWaitMs,
      onBegan: (error) =>
        log.warn(
          `${(error as Error).message}: the service cannot be reached; new requests wait for it, one trying at a time, for up to ${formatWait(maxWaitMs)} (--max-outage-wait)`,
        ),
      onEnded: (lastedMs) => log.info(`the service answers again, after ${formatWait(lastedMs)}`),
    });
  }

  /** An authorized request whose 2xx answer `read` turns into the result; `body` is sent as JSON. */
  call<T>(
    method: Dispatcher.HttpMethod,
    path: string,
    what: string,
    read: (response: Dispatcher.ResponseData) => Promise<T>,
    how: RequestRetry & { body?: unknown } = {},
  ): Promise<T> {
    const { body, signal } = how;
    const url = this.url(path);
    return this.retry(
      what,
      async () => {
        const response = await this.send(method, url, what, {
          authorized: true,
          json: body !== undefined,
          body: body === undefined ? undefined : JSON.stringify(body),
          signal,
        });
        if (response.statusCode < 200 || response.statusCode > 299) {
          return this.fail(response, url, what, RETRYABLE_STATUSES);
        }
        try {
          return await read(response);
        } catch (error) {
          if (error instanceof InvalidResponseError) throw error;
          throw networkError(error, what, url, undefined, undefined, this.#options.baseUrlSource);
        }
      },
      {
        signal,
        stopWaiting: how.stopWaiting,
        shouldRetry: how.shouldRetry ?? isRetryableByDefault,
        holdsSlot: how.holdsSlot !== false,
      },
    );
  }
}
