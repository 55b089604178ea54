/**
 * The one client of the Voice Redaction Service: bearer auth, timeouts, retries through one shared
 * throttle gate, typed answers. It writes no files: `redact` and `downloadSigned` hand a body to a
 * caller's sink. Everything it returns or throws that came from the service is scrubbed of secrets,
 * and identifiers are checked before they go into a request.
 */
import { openAsBlob } from 'node:fs';
import { basename, extname } from 'node:path';
import { Agent, type Dispatcher, FormData, request } from 'undici';
import type * as v from 'valibot';
import type { Clock } from '../clock.js';
import { ExitCode } from '../errors.js';
import type { Logger } from '../output/logger.js';
import { DEFAULT_CONCURRENCY, DEFAULT_MAX_THROTTLE_WAIT_MS } from '../settings/settings.js';
import { errorForStatus, InvalidResponseError, LinkRefusedError } from './errors.js';
import { assertFileName, jobPath } from './identifiers.js';
import { readJsonList, readSmallJson } from './json-reader.js';
import { type RedactionAnswer, readRedactionAnswer } from './redaction-answer.js';
import {
  isRetryableByDefault,
  parseRetryAfter,
  RETRYABLE_STATUSES,
  RetryableStatusError,
  withRetries,
} from './retry.js';
import {
  CreatedJobSchema,
  DownloadUrlSchema,
  type Job,
  type JobContentItem,
  JobContentItemSchema,
  JobSchema,
} from './schemas.js';
import { type Scrub, scrubberFor } from './scrub.js';
import { Throttle } from './throttle.js';
import {
  BodyReadError,
  contentLengthOf,
  headerValue,
  hostPort,
  networkError,
  readText,
  taggedBody,
} from './transport.js';
import { NOT_ACCEPTED_STATUSES, uploadSafeToResend } from './upload-fate.js';
import { maskToken } from '../settings/mask.js';
import { jobIdProblem } from './identifiers.js';
import { formatWait } from './wait-text.js';

export type { RedactionAnswer } from './redaction-answer.js';

export interface ClientOptions {
  baseUrl: URL;
  token: string;
  timeoutMs: number;
  /** Retries of failures other than throttling. */
  maxRetries: number;
  clock: Clock;
  log: Logger;
  userAgent: string;
  /** The most requests in flight at once (`-c`); the throttle window never exceeds it. */
  concurrency?: number;
  /** How long continuous throttling is ridden out (`--max-throttle-wait`). */
  maxThrottleWaitMs?: number;
}

/** A response body handed to the caller, who decides where the bytes go (the client writes no files). */
export interface ResponseBody {
  /** The bytes; a network failure while reading them surfaces as the client's typed error. */
  body: AsyncIterable<Uint8Array>;
  /** The Content-Length the server announced, if any. */
  contentLength: number | undefined;
  contentType: string;
}

/**
 * Consumes a response body. It runs again, with a fresh body, when the request is retried after a
 * network failure while reading; its own errors (a local file-system error, a failed check) are never
 * retried and pass through as they are.
 */
export type BodySink<T> = (response: ResponseBody) => Promise<T>;

const REDACTION_PATH = '/api/speech-to-speech-biometric-redaction';
const JOBS_PATH = '/api/jobs';
/** Error bodies are read only this far: an HTML error page can be large and says little. */
const ERROR_BODY_LIMIT = 64 * 1024;

/** A job's `token` field is a secret whoever's it is: masked before anything else sees it. */
function maskJobToken(raw: unknown): unknown {
  if (!raw || typeof raw !== 'object' || !('token' in raw) || typeof raw.token !== 'string') return raw;
  return { ...raw, token: maskToken(raw.token) };
}

export class ApiClient {
  readonly #options: ClientOptions;
  readonly #agent: Agent;
  readonly #throttle: Throttle;
  readonly #scrub: Scrub;
  /** One "still trying" line per outage, not one per request. */
  #slowConnectNoticed = false;

  constructor(options: ClientOptions) {
    this.#options = options;
    this.#agent = new Agent({
      connectTimeout: Math.min(options.timeoutMs, 30_000),
      headersTimeout: options.timeoutMs,
      bodyTimeout: options.timeoutMs,
    });
    this.#throttle = new Throttle({
      clock: options.clock,
      maxConcurrency: options.concurrency ?? DEFAULT_CONCURRENCY,
      maxWaitMs: options.maxThrottleWaitMs ?? DEFAULT_MAX_THROTTLE_WAIT_MS,
    });
    const { username, password } = options.baseUrl;
    this.#scrub = scrubberFor([
      options.token,
      password ? decodeURIComponent(password) : undefined,
      username ? decodeURIComponent(username) : undefined,
    ]);
  }

  get baseUrl(): URL {
    return this.#options.baseUrl;
  }

  async close(): Promise<void> {
    await this.#agent.close();
  }

  #url(path: string): URL {
    const base = this.#options.baseUrl;
    const url = new URL(base.href);
    url.pathname = `${base.pathname.replace(/\/+$/, '')}${path}`;
    return url;
  }

  async #send(
    method: Dispatcher.HttpMethod,
    url: URL,
    what: string,
    init: { body?: string | FormData; json?: boolean; authorized: boolean; signal?: AbortSignal | undefined },
  ): Promise<Dispatcher.ResponseData> {
    const headers: Record<string, string> = { 'user-agent': this.#options.userAgent };
    // Signed URLs are fetched with no credentials at all: they may point at another host.
    if (init.authorized) headers.authorization = `Bearer ${this.#options.token}`;
    if (init.json) headers['content-type'] = 'application/json';
    if (init.json || init.authorized) headers.accept = 'application/json, audio/*;q=0.9, */*;q=0.1';
    this.#options.log.debug(`${method} ${init.authorized ? url.href : `${url.origin}${url.pathname}`}`);
    try {
      const response = await request(url, {
        method,
        headers,
        body: init.body,
        dispatcher: this.#agent,
        signal: init.signal,
      });
      this.#options.log.debug(`${method} ${url.pathname} → ${response.statusCode}`);
      this.#slowConnectNoticed = false;
      return response;
    } catch (error) {
      throw networkError(error, what, url);
    }
  }

  /** A 404 on the jobs list means the base URL's path is wrong more often than anything else. */
  #notFoundHint(url: URL): string | undefined {
    const basePath = this.#options.baseUrl.pathname.replace(/\/+$/, '');
    if (/\/api$/i.test(basePath)) {
      return `the base URL should not end in /api (requests went to ${url.pathname}): set it to ${this.#options.baseUrl.origin}${basePath.slice(0, -4) || ''}`;
    }
    if (url.pathname === `${basePath}${JOBS_PATH}`) {
      return basePath
        ? `the base URL holds a path (${basePath}) the service may not answer on: check \`vredact config get base-url\``
        : 'check that the base URL points at the service: `vredact config get base-url`';
    }
    return undefined;
  }

  /** Reads an error answer and throws its typed error, marked retryable where the status allows. */
  async #fail(
    response: Dispatcher.ResponseData,
    url: URL,
    what: string,
    retryable: ReadonlySet<number>,
  ): Promise<never> {
    const text = await readText(response.body, ERROR_BODY_LIMIT).catch(() => '');
    const hint = response.statusCode === 404 ? this.#notFoundHint(url) : undefined;
    const error = errorForStatus(response.statusCode, what, text, this.#scrub, hint);
    if (retryable.has(response.statusCode)) {
      throw new RetryableStatusError(
        error,
        parseRetryAfter(response.headers['retry-after'], this.#options.clock.now()),
      );
    }
    throw error;
  }

  #retry<T>(
    what: string,
    signal: AbortSignal | undefined,
    attempt: () => Promise<T>,
    shouldRetry = isRetryableByDefault,
  ) {
    const { log, maxRetries, clock } = this.#options;
    return withRetries(attempt, {
      maxRetries,
      clock,
      signal,
      shouldRetry,
      what,
      throttle: this.#throttle,
      onRetry: (error, attempt, delayMs) =>
        log.debug(
          delayMs === 0
            ? `${what}: ${(error as Error).message}; throttled, waiting at the gate (window ${this.#throttle.window})`
            : `${what}: ${(error as Error).message}; retry ${attempt}/${maxRetries} in ${formatWait(delayMs)}`,
        ),
      onSlowConnect: (error) => {
        if (this.#slowConnectNoticed) return;
        this.#slowConnectNoticed = true;
        log.info(`${(error as Error).message}; still trying (up to ${maxRetries} retries)…`);
      },
    });
  }

  /** An authorized request whose 2xx answer `read` turns into the result. */
  #call<T>(
    method: Dispatcher.HttpMethod,
    path: string,
    what: string,
    read: (response: Dispatcher.ResponseData) => Promise<T>,
    body?: unknown,
    signal?: AbortSignal,
  ): Promise<T> {
    const url = this.#url(path);
    return this.#retry(what, signal, async () => {
      const response = await this.#send(method, url, what, {
        authorized: true,
        json: body !== undefined,
        body: body === undefined ? undefined : JSON.stringify(body),
        signal,
      });
      if (response.statusCode < 200 || response.statusCode > 299) {
        return this.#fail(response, url, what, RETRYABLE_STATUSES);
      }
      try {
        return await read(response);
      } catch (error) {
        if (error instanceof InvalidResponseError) throw error;
        throw networkError(error, what, url);
      }
    });
  }

  #small<S extends v.GenericSchema>(
    method: Dispatcher.HttpMethod,
    path: string,
    schema: S,
    what: string,
    body?: unknown,
    signal?: AbortSignal,
  ) {
    return this.#call(
      method,
      path,
      what,
      (response) => readSmallJson(response.body, schema, what, response.statusCode, this.#scrub),
      body,
      signal,
    );
  }

  /**
   * Every job of the token, read as a stream (no cap on the number of jobs). A job's `token` field
   * comes back masked; a job whose id is unsafe to put in a path is left out, with a warning.
   */
  async listJobs(signal?: AbortSignal): Promise<Job[]> {
    const what = 'listing jobs';
    const jobs = await this.#call(
      'GET',
      JOBS_PATH,
      what,
      async (response) => {
        const out: Job[] = [];
        let unsafe = 0;
        await readJsonList(response.body, {
          key: 'jobs',
          item: JobSchema,
          what,
          status: response.statusCode,
          scrub: this.#scrub,
          before: maskJobToken,
          onItem: (job) => {
            if (jobIdProblem(job.job_id)) unsafe++;
            else out.push(job);
          },
        });
        if (unsafe > 0)
          this.#options.log.warn(
            `${what}: left out ${unsafe} job(s) whose id cannot be used safely in a request`,
          );
        return out;
      },
      undefined,
      signal,
    );
    return jobs;
  }

  async createJob(signal?: AbortSignal): Promise<string> {
    return (await this.#small('POST', JOBS_PATH, CreatedJobSchema, 'creating a job', undefined, signal))
      .job_id;
  }

  /** A job's content items, read as a stream; file names are checked only when one is asked for. */
  async jobContent(jobId: string, signal?: AbortSignal): Promise<JobContentItem[]> {
    const what = `reading job ${jobId}`;
    const path = jobPath(jobId, '/content', what);
    return this.#call(
      'GET',
      path,
      what,
      async (response) => {
        const items: JobContentItem[] = [];
        await readJsonList(response.body, {
          key: 'jobContent',
          item: JobContentItemSchema,
          what,
          status: response.statusCode,
          scrub: this.#scrub,
          onItem: (item) => items.push(item),
        });
        return items;
      },
      undefined,
      signal,
    );
  }

  async downloadUrl(jobId: string, fileName: string, signal?: AbortSignal): Promise<URL> {
    const what = `getting a download URL for ${fileName}`;
    const path = jobPath(jobId, '/files/download-url', what);
    assertFileName(fileName, what);
    const answer = await this.#small('POST', path, DownloadUrlSchema, what, { fileName }, signal);
    return new URL(answer.signedUrl, this.#options.baseUrl);
  }

  /**
   * Hands a body to the sink: a failure while reading it is a network error (retryable); whatever
   * else the sink throws is its own and passes through untouched.
   */
  async #consume<T>(
    body: AsyncIterable<Uint8Array>,
    headers: Dispatcher.ResponseData['headers'],
    sink: BodySink<T>,
    what: string,
    url: URL,
  ): Promise<T> {
    try {
      return await sink({
        body: taggedBody(body),
        contentLength: contentLengthOf(headers),
        contentType: headerValue(headers, 'content-type').toLowerCase(),
      });
    } catch (error) {
      if (error instanceof BodyReadError) throw networkError(error.original, what, url);
      throw error;
    }
  }

  /** GETs a signed URL, without credentials, and hands the body to `sink`. */
  async downloadSigned<T>(url: URL, sink: BodySink<T>, signal?: AbortSignal): Promise<T> {
    if (url.protocol !== 'https:' && url.protocol !== 'http:') {
      throw new InvalidResponseError(
        `the service gave a download URL that is not http(s): ${this.#scrub(url.protocol)}`,
      );
    }
    const what = `downloading ${this.#scrub(decodeURIComponent(basename(url.pathname)))} from ${hostPort(url)}`;
    return this.#retry(what, signal, async () => {
      const response = await this.#send('GET', url, what, { authorized: false, signal });
      if (response.statusCode === 401 || response.statusCode === 403) {
        response.body.resume();
        throw new LinkRefusedError(
          `${what}: the download link was refused (${response.statusCode}); it may have expired`,
          undefined,
          undefined,
          ExitCode.partial,
          'run the command again: it asks for a new link',
        );
      }
      if (response.statusCode < 200 || response.statusCode > 299) {
        return this.#fail(response, url, what, RETRYABLE_STATUSES);
      }
      return this.#consume(response.body, response.headers, sink, what, url);
    });
  }

  /** Asks for a signed URL of a job's file and hands its body to `sink`. */
  async downloadJobFile<T>(
    jobId: string,
    fileName: string,
    sink: BodySink<T>,
    signal?: AbortSignal,
  ): Promise<T> {
    return this.downloadSigned(await this.downloadUrl(jobId, fileName, signal), sink, signal);
  }

  /**
   * Uploads one recording for redaction, under `uploadName`. A synchronous answer (audio) is handed to
   * `sink`; an asynchronous one gives the job id. The file is reopened for every attempt, and an upload
   * is retried only where the service cannot have accepted it (throttle answers through the gate).
   */
  async redact<T>(
    filePath: string,
    fields: Readonly<Record<string, string>>,
    uploadName: string,
    sink: BodySink<T>,
    signal?: AbortSignal,
  ): Promise<RedactionAnswer<T>> {
    const what = `redacting ${basename(filePath)}`;
    const url = this.#url(REDACTION_PATH);
    const type = extname(filePath).toLowerCase() === '.mp3' ? 'audio/mpeg' : 'audio/wav';
    return this.#retry(
      what,
      signal,
      async () => {
        const form = new FormData();
        for (const [name, value] of Object.entries(fields)) form.append(name, value);
        form.append('source_audio', await openAsBlob(filePath, { type }), uploadName);
        const response = await this.#send('POST', url, what, { authorized: true, body: form, signal });
        if (response.statusCode < 200 || response.statusCode > 299) {
          return this.#fail(response, url, what, NOT_ACCEPTED_STATUSES);
        }
        return readRedactionAnswer(
          response,
          (body) => this.#consume(body, response.headers, sink, what, url),
          what,
          url,
          this.#scrub,
        );
      },
      uploadSafeToResend,
    );
  }
}
