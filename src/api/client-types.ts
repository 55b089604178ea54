/** What the service client is given and gives back: its options, the bodies it hands on, an upload's. */
import type { Clock } from '../clock.js';
import type { Logger } from '../output/logger.js';
import type { SettingSource } from '../settings/settings.js';
import type { ProxySettings } from './proxy.js';
import type { Job, JobContentItem } from './schemas.js';

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
  /** The proxies the environment names (none: every request goes direct). */
  proxies?: ProxySettings | undefined;
  /** Where `token` came from (a refusal's hint depends on it); undefined for one given to the command itself. */
  tokenSource?: SettingSource | undefined;
  /** Where `baseUrl` came from: every hint to check it names where it is set. */
  baseUrlSource?: SettingSource | undefined;
}

/** A response body handed to the caller, who decides where the bytes go (the client writes no files). */
export interface ResponseBody {
  /** The bytes; a network failure while reading them surfaces as the client's typed error. */
  body: AsyncIterable<Uint8Array>;
  /** The Content-Length the server announced, if any. */
  contentLength: number | undefined;
  contentType: string;
}

/** What ends one request: `signal` aborts it at any point, `stopWaiting` only while it waits. */
export interface RequestSignals {
  signal?: AbortSignal | undefined;
  /**
   * Gives the request up while it waits to be sent (at the gate, between attempts), as NotSentError;
   * an attempt under way goes on. Aborted whenever `signal` is.
   */
  stopWaiting?: AbortSignal | undefined;
}

/** How one recording is uploaded. */
export interface UploadOptions extends RequestSignals {
  /** The file's bytes as the caller checked them: sent as they are, the file not read again. */
  bytes?: Uint8Array | undefined;
  /** Told the SHA-256 of the file's bytes as read and sent (not called when `bytes` are given). */
  onFileSent?: ((sha256: string) => void) | undefined;
  /**
   * Told `true` as each attempt's request starts (past the gate and any wait between attempts) and
   * `false` as it ends: the upload is in flight only in between.
   */
  onRequest?: ((underWay: boolean) => void) | undefined;
}

/**
 * Consumes a response body. It runs again, with a fresh body, when the request is retried after a
 * network failure while reading; its own errors (a local file-system error, a failed check) are never
 * retried and pass through as they are.
 */
export type BodySink<T> = (response: ResponseBody) => Promise<T>;

/** Takes the jobs of a listing one by one, keeping only what its command needs. */
export interface JobSink {
  add(job: Job): void;
  /** Awaited after each chunk of the answer: a sink with work to do on what it took holds the reading back. */
  drain?: () => Promise<void>;
}

/** Takes a job's content items one by one, as they are read. */
export interface ContentSink {
  /**
   * `givenFileName`: the item's file name as the service gave it, where it differs from the scrubbed
   * one (a part of the token masked in it); only to ask the service for that file, never to show.
   */
  add(item: JobContentItem, givenFileName?: string): void;
  /**
   * An item of the listing that is no object (a number, null, a list), at `position` (from 1): no
   * item, so it is not added. Without this, such items are counted in one warning.
   */
  leftOut?: (position: number, problem: string) => void;
  /** Awaited after each chunk of the answer: an output that is full holds the reading back. */
  drain?: () => Promise<void>;
}
