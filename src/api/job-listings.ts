/**
 * The service's two listings, read as streams and handed item by item to a caller's sink: the jobs
 * of the token and a job's content items. Neither answer is held here, so a listing of a million
 * costs what the sink keeps.
 */
import { maskToken } from '../settings/mask.js';
import type { ContentSink, JobSink, RequestSignals } from './client-types.js';
import { JOBS_PATH, jobPath } from './identifiers.js';
import { readJsonList } from './json-reader.js';
import { isRetryableByDefault } from './retry.js';
import {
  contentElementProblem,
  type JobContentItem,
  JobContentItemSchema,
  JobSchema,
  isNamed,
  listedJobIdProblem,
} from './schemas.js';
import type { ServiceHttp } from './service-http.js';

/** A job's `token` field is a secret whoever's it is: masked before anything else sees it. */
function maskJobToken(raw: unknown): unknown {
  if (!raw || typeof raw !== 'object' || !('token' in raw) || typeof raw.token !== 'string') return raw;
  return { ...raw, token: maskToken(raw.token) };
}

/**
 * Every job of the token, handed to a sink made afresh for each attempt (a retry starts over), which
 * keeps what it needs. A job's `token` field comes to the sink masked. A job with no id vredact can
 * use (missing, not text or a whole number, unsafe in a path) is left out, so one odd job never fails
 * the listing: one warning counts them and names the first.
 */
export async function eachJob<S extends JobSink>(
  http: ServiceHttp,
  makeSink: () => S,
  signal?: AbortSignal,
): Promise<S> {
  const what = 'listing jobs';
  return http.call(
    'GET',
    JOBS_PATH,
    what,
    async (response) => {
      const sink = makeSink();
      const drain = sink.drain?.bind(sink);
      let leftOut = 0;
      let first = '';
      await readJsonList(response.body, {
        key: 'jobs',
        item: JobSchema,
        what,
        scrub: http.scrub,
        admit: (raw, position) => {
          const problem = listedJobIdProblem(raw);
          if (problem === undefined) return true;
          if (leftOut++ === 0) first = `item ${position}: ${problem}`;
          return false;
        },
        before: maskJobToken,
        onItem: (job) => sink.add(job),
        ...(drain ? { afterChunk: drain } : {}),
      });
      if (leftOut > 0) http.options.log.warn(leftOutWarning(what, leftOut, first));
      return sink;
    },
    { signal },
  );
}

/** Jobs whose listing was warned about: polled every few seconds, a job is warned about once a run. */
export class WarnedJobs {
  /** A bound on the ids kept: past it, a job is warned about at each listing again, as before. */
  static readonly MAX = 10_000;
  readonly #ids = new Set<string>();

  /** Whether this is the first warning about `jobId`'s listing (then it is remembered). */
  first(jobId: string): boolean {
    if (this.#ids.has(jobId)) return false;
    if (this.#ids.size < WarnedJobs.MAX) this.#ids.add(jobId);
    return true;
  }
}

/** One line however many were left out: a listing may hold thousands. */
function leftOutWarning(
  what: string,
  leftOut: number,
  first: string,
  left = 'job(s) whose id cannot be used',
): string {
  const which = leftOut === 1 ? first : `the first is ${first}`;
  return `${what}: left out ${leftOut.toLocaleString('en-US')} ${left} (${which}); report the listing to the service's operators`;
}

/**
 * An item's file name as the service gave it, where the scrub masked a part of the token in it
 * (`x-<16 characters of the token>.wav`): the masked name is for showing, and the service knows the
 * file only by its own.
 */
function givenFileName(item: JobContentItem, raw: unknown): string | undefined {
  if (!isNamed(item) || raw === null || typeof raw !== 'object') return undefined;
  const given = (raw as { file_name?: unknown }).file_name;
  return typeof given === 'string' && given !== item.file_name ? given : undefined;
}

/**
 * A job's content items, handed to `sink` as they are read. An element that is no object (a number,
 * null) is no item: it goes to the sink's `leftOut`, or else into one warning (once a job where
 * `warnedJobs` is given), and the reading goes
 * on (it failed the whole listing, and with it every file after it of a download). Once the sink has had an item the request
 * is not retried (it would hand that item again): a failure then is the command's. Returns how many
 * items the sink had. A sink that holds the reading back (`drain`) may be waiting on requests of its
 * own (`download` fetching the files listed): read through the gate, the listing would hold one of
 * their turns while they hold it back (at -c 1 the only one, and neither went on), so it takes no
 * slot of the window; it still waits at the gate, and rides out throttling as every request does.
 */
export async function eachContentItem(
  http: ServiceHttp,
  jobId: string,
  sink: ContentSink,
  how: RequestSignals = {},
  warnedJobs?: WarnedJobs,
): Promise<number> {
  const what = `reading job ${jobId}`;
  const path = jobPath(jobId, '/content', what);
  let handed = 0;
  return http.call(
    'GET',
    path,
    what,
    async (response) => {
      let leftOut = 0;
      let first = '';
      const count = await readJsonList(response.body, {
        key: 'jobContent',
        item: JobContentItemSchema,
        what,
        scrub: http.scrub,
        admit: (raw, position) => {
          const problem = contentElementProblem(raw);
          if (problem === undefined) return true;
          if (sink.leftOut) {
            handed++;
            sink.leftOut(position, problem);
          } else if (leftOut++ === 0) first = `item ${position}: ${problem}`;
          return false;
        },
        onItem: (item, raw) => {
          handed++;
          sink.add(item, givenFileName(item, raw));
        },
        ...(sink.drain ? { afterChunk: sink.drain } : {}),
      });
      if (leftOut > 0 && (warnedJobs?.first(jobId) ?? true))
        http.options.log.warn(leftOutWarning(what, leftOut, first, 'item(s) that are no file'));
      return count;
    },
    {
      ...how,
      shouldRetry: (error) => handed === 0 && isRetryableByDefault(error),
      holdsSlot: sink.drain === undefined,
    },
  );
}
