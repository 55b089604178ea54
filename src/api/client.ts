import { openAsBlob } from 'node:fs';
import { basename, extname } from 'node:path';
import type { Readable } from 'node:stream';
import { Agent, type Dispatcher, FormData, request } from 'undici';
import * as v from 'valibot';
import type { Clock } from '../clock.js';
import { ExitCode } from '../errors.js';
import type { Logger } from '../output/logger.js';
import {
  ConnectionError,
  errorForStatus,
  InvalidResponseError,
  LinkRefusedError,
  TimeoutError,
} from './errors.js';
import {
  isRetryableByDefault,
  parseRetryAfter,
  RETRYABLE_STATUSES,
  RetryableStatusError,
  withRetries,
} from './retry.js';
import { NOT_ACCEPTED_STATUSES, uploadSafeToResend } from './upload-fate.js';
import {
  CreatedJobSchema,
  DownloadUrlSchema,
  describeIssues,
  type Job,
  type JobContentItem,
  JobContentSchema,
  JobListSchema,
  jobIdOf,
} from './schemas.js';

export interface ClientOptions {
  baseUrl: URL;
  token: string;
  timeoutMs: number;
  maxRetries: number;
  clock: Clock;
  log: Logger;
  userAgent: string;
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

/** What a redaction request gave: the audio, as the sink made of it, or a job to collect later. */
export type RedactionAnswer<T> = { kind: 'audio'; result: T } | { kind: 'job'; jobId: string };

const REDACTION_PATH = '/api/speech-to-speech-biometric-redaction';
/** Error bodies are read only this far: an HTML error page can be large and says little. */
const ERROR_BODY_LIMIT = 64 * 1024;
const JSON_BODY_LIMIT = 16 * 1024 * 1024;

async function readText(body: Readable & AsyncIterable<Uint8Array>, limit: number): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    const buffer = Buffer.from(chunk);
    chunks.push(buffer);
    size += buffer.length;
    if (size >= limit) {
      body.destroy();
      break;
    }
  }
  return Buffer.concat(chunks).subarray(0, limit).toString('utf8');
}

/** Reads the first `n` bytes of a stream and hands back the whole stream, those bytes included. */
async function peek(
  body: AsyncIterable<Uint8Array>,
  n: number,
): Promise<{ head: Buffer; all: AsyncIterable<Uint8Array> }> {
  const iterator = body[Symbol.asyncIterator]();
  const seen: Buffer[] = [];
  let size = 0;
  while (size < n) {
    const next = await iterator.next();
    if (next.done) break;
    const buffer = Buffer.from(next.value);
    seen.push(buffer);
    size += buffer.length;
  }
  const head = Buffer.concat(seen);
  async function* all() {
    if (head.length) yield head;
    for (;;) {
      const next = await iterator.next();
      if (next.done) return;
      yield next.value;
    }
  }
  return { head, all: all() };
}

function isWavHeader(head: Buffer): boolean {
  return (
    head.length >= 12 && head.toString('latin1', 0, 4) === 'RIFF' && head.toString('latin1', 8, 12) === 'WAVE'
  );
}

/** Marks an error thrown while reading a response body, so it is told from the sink's own errors. */
class BodyReadError extends Error {
  constructor(readonly original: unknown) {
    super('body read failed');
  }
}

/** The body as an iterable whose read failures are tagged, for `#consume` to classify. */
async function* taggedBody(body: AsyncIterable<Uint8Array>): AsyncIterable<Uint8Array> {
  const iterator = body[Symbol.asyncIterator]();
  for (;;) {
    let next: IteratorResult<Uint8Array>;
    try {
      next = await iterator.next();
    } catch (error) {
      throw new BodyReadError(error);
    }
    if (next.done) return;
    yield next.value;
  }
}

function contentLengthOf(headers: Dispatcher.ResponseData['headers']): number | undefined {
  const text = headerValue(headers, 'content-length');
  return /^\d+$/.test(text) ? Number(text) : undefined;
}

function headerValue(headers: Dispatcher.ResponseData['headers'], name: string): string {
  const value = headers[name];
  return (Array.isArray(value) ? value[0] : value) ?? '';
}

const NETWORK_TIMEOUT_CODES = new Set([
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
]);

/** Turns undici's and the socket's errors into the client's typed errors; aborts pass through. */
export function networkError(error: unknown, what: string): unknown {
  if (!(error instanceof Error)) return error;
  if (error.name === 'AbortError' || (error as { code?: string }).code === 'ABORT_ERR') return error;
  const code =
    (error as { code?: string }).code ?? ((error.cause as { code?: string } | undefined)?.code || '');
  if (NETWORK_TIMEOUT_CODES.has(code)) {
    return new TimeoutError(
      `${what}: the service did not answer in time (${code})`,
      undefined,
      undefined,
      1,
      'raise --timeout, or try again later',
    );
  }
  const refused = code === 'ECONNREFUSED';
  return new ConnectionError(
    `${what}: ${refused ? 'connection refused' : `network error (${code || error.message})`}`,
    refused,
  );
}

/** The one client of the Voice Redaction Service: bearer auth, timeouts, retries, typed answers. */
export class ApiClient {
  readonly #options: ClientOptions;
  readonly #agent: Agent;

  constructor(options: ClientOptions) {
    this.#options = options;
    this.#agent = new Agent({
      connectTimeout: Math.min(options.timeoutMs, 30_000),
      headersTimeout: options.timeoutMs,
      bodyTimeout: options.timeoutMs,
    });
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
      return response;
    } catch (error) {
      throw networkError(error, what);
    }
  }

  /** Reads an error answer and throws its typed error, marked retryable where the status allows. */
  async #fail(
    response: Dispatcher.ResponseData,
    what: string,
    retryable: ReadonlySet<number>,
  ): Promise<never> {
    const text = await readText(response.body, ERROR_BODY_LIMIT).catch(() => '');
    const error = errorForStatus(response.statusCode, what, text);
    if (retryable.has(response.statusCode)) {
      throw new RetryableStatusError(
        error,
        parseRetryAfter(response.headers['retry-after'], this.#options.clock.now()),
      );
    }
    throw error;
  }

  #retryOptions(what: string, signal?: AbortSignal, shouldRetry = isRetryableByDefault) {
    return {
      maxRetries: this.#options.maxRetries,
      clock: this.#options.clock,
      signal,
      shouldRetry,
      onRetry: (error: unknown, attempt: number, delayMs: number) =>
        this.#options.log.debug(
          `${what}: ${(error as Error).message}; retry ${attempt}/${this.#options.maxRetries} in ${Math.round(delayMs / 100) / 10}s`,
        ),
    };
  }

  async #json<S extends v.GenericSchema>(
    method: Dispatcher.HttpMethod,
    path: string,
    schema: S,
    what: string,
    body?: unknown,
    signal?: AbortSignal,
  ): Promise<v.InferOutput<S>> {
    const url = this.#url(path);
    return withRetries(
      async () => {
        const response = await this.#send(method, url, what, {
          authorized: true,
          json: body !== undefined,
          body: body === undefined ? undefined : JSON.stringify(body),
          signal,
        });
        if (response.statusCode < 200 || response.statusCode > 299) {
          return this.#fail(response, what, RETRYABLE_STATUSES);
        }
        const text = await readText(response.body, JSON_BODY_LIMIT).catch((error: unknown) => {
          throw networkError(error, what);
        });
        let parsed: unknown;
        try {
          parsed = JSON.parse(text);
        } catch {
          throw new InvalidResponseError(
            `${what}: the service answered ${response.statusCode} with a body that is not JSON`,
          );
        }
        const result = v.safeParse(schema, parsed);
        if (!result.success) {
          throw new InvalidResponseError(
            `${what}: unexpected answer from the service (${describeIssues(result.issues)})`,
          );
        }
        return result.output;
      },
      this.#retryOptions(what, signal),
    );
  }

  async listJobs(signal?: AbortSignal): Promise<Job[]> {
    return (await this.#json('GET', '/api/jobs', JobListSchema, 'listing jobs', undefined, signal)).jobs;
  }

  async createJob(signal?: AbortSignal): Promise<string> {
    return (await this.#json('POST', '/api/jobs', CreatedJobSchema, 'creating a job', undefined, signal))
      .job_id;
  }

  async jobContent(jobId: string, signal?: AbortSignal): Promise<JobContentItem[]> {
    const path = `/api/jobs/${encodeURIComponent(jobId)}/content`;
    return (await this.#json('GET', path, JobContentSchema, `reading job ${jobId}`, undefined, signal))
      .jobContent;
  }

  async downloadUrl(jobId: string, fileName: string, signal?: AbortSignal): Promise<URL> {
    const path = `/api/jobs/${encodeURIComponent(jobId)}/files/download-url`;
    const what = `getting a download URL for ${fileName}`;
    const answer = await this.#json('POST', path, DownloadUrlSchema, what, { fileName }, signal);
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
  ): Promise<T> {
    try {
      return await sink({
        body: taggedBody(body),
        contentLength: contentLengthOf(headers),
        contentType: headerValue(headers, 'content-type').toLowerCase(),
      });
    } catch (error) {
      if (error instanceof BodyReadError) throw networkError(error.original, what);
      throw error;
    }
  }

  /** GETs a signed URL, without credentials, and hands the body to `sink`. */
  async downloadSigned<T>(url: URL, sink: BodySink<T>, signal?: AbortSignal): Promise<T> {
    if (url.protocol !== 'https:' && url.protocol !== 'http:') {
      throw new InvalidResponseError(`the service gave a download URL that is not http(s): ${url.protocol}`);
    }
    const what = `downloading ${basename(url.pathname)}`;
    return withRetries(
      async () => {
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
          return this.#fail(response, what, RETRYABLE_STATUSES);
        }
        return this.#consume(response.body, response.headers, sink, what);
      },
      this.#retryOptions(what, signal),
    );
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
   * is retried only where the service cannot have accepted it.
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
    const shouldRetry = uploadSafeToResend;
    return withRetries(
      async () => {
        const form = new FormData();
        for (const [name, value] of Object.entries(fields)) form.append(name, value);
        form.append('source_audio', await openAsBlob(filePath, { type }), uploadName);
        const response = await this.#send('POST', url, what, { authorized: true, body: form, signal });
        if (response.statusCode < 200 || response.statusCode > 299) {
          return this.#fail(response, what, NOT_ACCEPTED_STATUSES);
        }
        return this.#readRedactionAnswer(response, sink, what);
      },
      this.#retryOptions(what, signal, shouldRetry),
    );
  }

  async #readRedactionAnswer<T>(
    response: Dispatcher.ResponseData,
    sink: BodySink<T>,
    what: string,
  ): Promise<RedactionAnswer<T>> {
    const contentType = headerValue(response.headers, 'content-type').toLowerCase();
    let peeked: { head: Buffer; all: AsyncIterable<Uint8Array> };
    try {
      peeked = await peek(response.body, 12);
    } catch (error) {
      throw networkError(error, what);
    }
    if (contentType.startsWith('audio/') || isWavHeader(peeked.head)) {
      return { kind: 'audio', result: await this.#consume(peeked.all, response.headers, sink, what) };
    }
    let text: string;
    try {
      const chunks: Buffer[] = [];
      let size = 0;
      for await (const chunk of peeked.all) {
        chunks.push(Buffer.from(chunk));
        size += chunk.length;
        if (size > JSON_BODY_LIMIT) break;
      }
      text = Buffer.concat(chunks).toString('utf8');
    } catch (error) {
      throw networkError(error, what);
    }
    let jobId: string | undefined;
    try {
      jobId = jobIdOf(JSON.parse(text));
    } catch {
      jobId = undefined;
    }
    if (jobId) return { kind: 'job', jobId };
    throw new InvalidResponseError(
      `${what}: the service answered ${response.statusCode} with neither audio nor a job id (${contentType || 'no content type'})`,
    );
  }
}
