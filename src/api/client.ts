/**
 * The one client of the Voice Redaction Service: bearer auth, timeouts, retries through one shared
 * throttle gate, typed answers. It writes no files: `redact` and `downloadSigned` hand a body to a
 * caller's sink. Everything it returns or throws that came from the service is scrubbed of secrets,
 * and identifiers are checked before they go into a request.
 */
import { basename, extname } from 'node:path';
import type { Dispatcher } from 'undici';
import type * as v from 'valibot';
import { ExitCode } from '../errors.js';
import { displayText, truncate } from '../output/sanitize.js';
import type {
  BodySink,
  ClientOptions,
  ContentSink,
  JobSink,
  RequestSignals,
  UploadOptions,
} from './client-types.js';
import { type Answerer, linkHost } from './answer-hints.js';
import { InvalidResponseError } from './errors.js';
import { asLinkMissing, FRESH_LINK_HINT, LinkRefusedError } from './link-errors.js';
import { assertFileName, assertNewJobId, JOBS_PATH, jobPath, REDACTION_PATH } from './identifiers.js';
import { eachContentItem, eachJob, WarnedJobs } from './job-listings.js';
import { readSmallJson } from './json-reader.js';
import type { BaseUrlSource } from './base-url-hints.js';
import { hintNamingSource } from './source-hints.js';
import { multipartWithFile } from './multipart.js';
import { type RedactionAnswer, readRedactionAnswer } from './redaction-answer.js';
import { RETRYABLE_STATUSES } from './retry.js';
import { CreatedJobSchema, DownloadUrlSchema, type JobContentItem } from './schemas.js';
import { ServiceHttp } from './service-http.js';
import {
  BodyReadError,
  contentLengthOf,
  headerValue,
  networkError,
  closeBody,
  taggedBody,
} from './transport.js';
import { getFollowingRedirects, resolveSignedUrl, signedUrlProblem } from './signed-url.js';
import { NOT_ACCEPTED_STATUSES, uploadSafeToResend } from './upload-fate.js';

export type { RedactionAnswer } from './redaction-answer.js';

export type {
  BodySink,
  ClientOptions,
  ContentSink,
  JobSink,
  RequestSignals,
  ResponseBody,
  UploadOptions,
} from './client-types.js';

export class ApiClient {
  readonly #http: ServiceHttp;
  /** Where a redaction answer's `Location` may name a job (job-location.ts); made once, not per upload. */
  readonly #jobsUrl: URL;
  /** Jobs whose listing held elements that are no item, already said: a run polls a job many times. */
  readonly #warnedJobs = new WarnedJobs();

  constructor(options: ClientOptions) {
    this.#http = new ServiceHttp(options);
    this.#jobsUrl = this.#http.url(JOBS_PATH);
  }

  get baseUrl(): URL {
    return this.#http.baseUrl;
  }

  /** Where the base URL came from, which every hint to check it names. */
  get baseUrlSource(): BaseUrlSource {
    return this.#http.options.baseUrlSource;
  }

  async close(): Promise<void> {
    await this.#http.close();
  }

  #small<S extends v.GenericSchema>(
    method: Dispatcher.HttpMethod,
    path: string,
    schema: S,
    what: string,
    how: RequestSignals & { body?: unknown; shouldRetry?: (error: unknown) => boolean } = {},
  ) {
    return this.#http.call(
      method,
      path,
      what,
      (response) => readSmallJson(response.body, schema, what, this.#http.scrub),
      how,
    );
  }

  /** Every job of the token, streamed to a sink made afresh for each attempt (see job-listings.ts). */
  eachJob<S extends JobSink>(makeSink: () => S, signal?: AbortSignal): Promise<S> {
    return eachJob(this.#http, makeSink, signal);
  }

  async createJob(signal?: AbortSignal): Promise<string> {
    const what = 'creating a job';
    // Each POST creates a job: like an upload, it is sent again only where the service cannot have
    // taken it, or one `jobs create` left several jobs behind (one per retry of a dropped answer).
    const created = await this.#small('POST', JOBS_PATH, CreatedJobSchema, what, {
      signal,
      shouldRetry: uploadSafeToResend,
    });
    return assertNewJobId(created.job_id, what, this.baseUrlSource);
  }

  /** A job's content items, read as a stream and held; file names are checked only when one is asked for. */
  async jobContent(jobId: string, how: RequestSignals = {}): Promise<JobContentItem[]> {
    const items: JobContentItem[] = [];
    await this.eachContentItem(jobId, { add: (item) => void items.push(item) }, how);
    return items;
  }

  /** A job's content items, streamed to `sink` (see job-listings.ts); returns how many it had. */
  eachContentItem(jobId: string, sink: ContentSink, how: RequestSignals = {}): Promise<number> {
    return eachContentItem(this.#http, jobId, sink, how, this.#warnedJobs);
  }

  /** `fileName` as the service gave it; what errors say of it is scrubbed as the service's text is. */
  async downloadUrl(jobId: string, fileName: string, how: RequestSignals = {}): Promise<URL> {
    const shownName = this.#http.scrub(fileName);
    const what = `getting a download URL for ${shownName}`;
    const path = jobPath(jobId, '/files/download-url', what);
    assertFileName(fileName, what, shownName);
    const answer = await this.#small('POST', path, DownloadUrlSchema, what, { ...how, body: { fileName } });
    try {
      return resolveSignedUrl(answer.signedUrl, this.#http.baseUrl, what);
    } catch (error) {
      throw hintNamingSource(error, this.baseUrlSource);
    }
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
    from?: Answerer,
  ): Promise<T> {
    try {
      return await sink({
        body: taggedBody(body),
        // An encoded answer's length is the encoded body's: ServiceHttp dropped it.
        contentLength: contentLengthOf(headers),
        contentType: headerValue(headers, 'content-type').toLowerCase(),
      });
    } catch (error) {
      // A sink that refused the answer before reading it (announced past a cap) left the body open:
      // it would hold its connection until the body timeout. Closing a body already read is nothing.
      closeBody(body);
      if (error instanceof BodyReadError)
        throw networkError(error.original, what, url, undefined, from?.other);
      throw error;
    }
  }

  /** GETs a signed URL, without credentials, following its redirects, and hands the body to `sink`. */
  async downloadSigned<T>(url: URL, sink: BodySink<T>, how: RequestSignals = {}): Promise<T> {
    const { signal } = how;
    const problem = signedUrlProblem(url);
    if (problem) {
      throw hintNamingSource(
        new InvalidResponseError(`the service gave a download URL that is ${this.#http.scrub(problem)}`),
        this.baseUrlSource,
      );
    }
    // Its errors name the host that answered (see linkHost), never the service.
    const what = `downloading ${truncate(displayText(this.#http.scrub(basename(url.pathname))), 80)}`;
    const request = async () => {
      const { response, url: at } = await getFollowingRedirects(url, what, (next) =>
        this.#http.send('GET', next, what, { authorized: false, signal, from: linkHost(next, url) }),
      );
      const host = linkHost(at, url);
      if (response.statusCode === 401 || response.statusCode === 403) {
        response.body.resume();
        throw new LinkRefusedError(
          `${what}: ${host.name} refused the link (${response.statusCode}); it may have expired`,
          undefined,
          undefined,
          ExitCode.partial,
          FRESH_LINK_HINT,
        );
      }
      if (response.statusCode < 200 || response.statusCode > 299) {
        return this.#http.fail(response, at, what, RETRYABLE_STATUSES, host).catch((error: unknown) => {
          throw asLinkMissing(error);
        });
      }
      return this.#consume(response.body, response.headers, sink, what, at, host);
    };
    return this.#http.retry(what, request, { ...how, toService: false });
  }

  /** See ServiceHttp.rideOutOutages: for a batch, which stops rather than failing file after file. */
  rideOutOutages(maxWaitMs: number): void {
    this.#http.rideOutOutages(maxWaitMs);
  }

  /** Asks for a signed URL of a job's file and hands its body to `sink`. */
  async downloadJobFile<T>(
    jobId: string,
    fileName: string,
    sink: BodySink<T>,
    how: RequestSignals = {},
  ): Promise<T> {
    return this.downloadSigned(await this.downloadUrl(jobId, fileName, how), sink, how);
  }

  /**
   * Uploads one recording for redaction, under `uploadName`. A synchronous answer (audio) is handed to
   * `sink`; an asynchronous one gives the job id. The file is reopened for every attempt, unless the
   * caller hands over its `bytes` (as checked); then `onFileSent` is told the SHA-256 of the bytes
   * each attempt read and sent. An upload is retried only where the service cannot have accepted it
   * (throttle answers through the gate).
   */
  async redact<T>(
    filePath: string,
    fields: Readonly<Record<string, string>>,
    uploadName: string,
    sink: BodySink<T>,
    options: UploadOptions = {},
  ): Promise<RedactionAnswer<T>> {
    const { signal, bytes, onFileSent } = options;
    const what = `redacting ${basename(filePath)}`;
    const url = this.#http.url(REDACTION_PATH);
    // The caller names the upload by what its content is (see uploadNameFor), never by the file's name.
    const type = extname(uploadName).toLowerCase() === '.mp3' ? 'audio/mpeg' : 'audio/wav';
    return this.#http.retry(
      what,
      async () => {
        options.onRequest?.(true);
        try {
          const form = await multipartWithFile(
            fields,
            'source_audio',
            filePath,
            uploadName,
            type,
            bytes,
            onFileSent,
          );
          const response = await this.#http.send('POST', url, what, { authorized: true, form, signal });
          if (response.statusCode < 200 || response.statusCode > 299) {
            return this.#http.fail(response, url, what, NOT_ACCEPTED_STATUSES, undefined, form.fileBytes);
          }
          return await readRedactionAnswer(
            response,
            (body) => this.#consume(body, response.headers, sink, what, url),
            what,
            url,
            this.#jobsUrl,
            this.#http.scrub,
          );
        } finally {
          options.onRequest?.(false);
        }
      },
      { signal, stopWaiting: options.stopWaiting, shouldRetry: uploadSafeToResend },
    );
  }
}
