/**
 * Interrupted uploads. An input whose last journal record is `uploading` was being sent when a run
 * died (SIGKILL, power loss): the service may have made a job of it, whose id was in an answer that
 * never reached the journal. Each upload carried a name unique to its input and attempt
 * (`<stem>.<tag><ext>`), journaled before it started, so the look-up is exact: before anything is
 * sent, the service's jobs are listed once, as a stream that keeps only the jobs it may read
 * (recent-jobs.ts): those created since the earliest of those uploads began (look-up-window.ts: less
 * RECONCILE_SKEW_MS for the two clocks, zone-less times against each other; undated jobs too), each read once, at most
 * RECONCILE_MAX_READS of them (the oldest first: an upload's job is created right after it starts).
 * An input whose job is not found is sent again; past the cap, with a warning. A job goes to one
 * input at most, and never to one the journal already names.
 * The upload names are not held by the run (a night of uploads cut short over 1,000,000 inputs would
 * hold a million of them, a week of such nights seven): the names the jobs read list are looked for
 * in the journals, and only the inputs whose uploads carried one of them are matched.
 */
import type { JobSink } from '../api/client-types.js';
import { NotFoundError } from '../api/errors.js';
import { isNamed, type Job, type JobContentItem } from '../api/schemas.js';
import { messageOf } from './engine.js';
import type { ListedTime } from '../api/timestamps.js';
import { LookUpWindow } from './look-up-window.js';
import { createdTime, RECONCILE_MAX_READS, RecentJobs } from './recent-jobs.js';
import { uploadNamesIn } from './upload-name.js';

export interface InterruptedInput<K> {
  key: K;
  /** The multipart file names its uploads carried (one per attempt). */
  uploadNames: readonly string[];
  /** When the first of those uploads started, in ms since the epoch. */
  sinceMs: number;
}

/** The job found for an interrupted upload, and which of its upload names it lists. */
export interface FoundJob {
  jobId: string;
  uploadName: string;
  /** What the journal's line of that upload says of the input. */
  durationSec?: number | undefined;
  inputSha256?: string | undefined;
}

/** What is looked for: how many inputs, and when the earliest of their uploads started. */
export interface InterruptedSearch {
  count: number;
  sinceMs: number;
}

/** A name listed in a job's content. */
export interface SeenUpload {
  jobId: string;
  /** The item's created_at, else the job's; undefined when neither can be read. */
  created: ListedTime | undefined;
}

/** Upload name → the jobs whose content lists that name: built once from every job read. */
export function indexContents(
  contents: Iterable<{ job: Job; items: readonly JobContentItem[] }>,
): Map<string, SeenUpload[]> {
  const index = new Map<string, SeenUpload[]>();
  for (const { job, items } of contents) {
    const jobTime = createdTime(job.created_at);
    const names = new Set<string>();
    // An upload is named by text: an item with no name as text is no upload of vredact's.
    for (const item of items.filter(isNamed)) {
      // The upload itself, or a result named after it (a service that lists its results only).
      for (const name of [item.file_name, ...uploadNamesIn(item.file_name)]) {
        if (names.has(name)) continue;
        names.add(name);
        const seen: SeenUpload = {
          jobId: job.job_id,
          created: createdTime(item.created_at) ?? jobTime,
        };
        const list = index.get(name);
        if (list) list.push(seen);
        else index.set(name, [seen]);
      }
    }
  }
  return index;
}

/**
 * Gives each interrupted input at most one job, each job to one input at most. Inputs are served in
 * the order their uploads started; each takes, among the unclaimed jobs listing one of its exact
 * upload names and created since its start (`window`: the listing's, look-up-window.ts), the earliest.
 */
export function matchUploads<K>(
  inputs: readonly InterruptedInput<K>[],
  index: ReadonlyMap<string, readonly SeenUpload[]>,
  window = new LookUpWindow(),
): Map<K, FoundJob> {
  const claimed = new Set<string>();
  const found = new Map<K, FoundJob>();
  for (const input of [...inputs].sort((a, b) => a.sinceMs - b.sinceMs)) {
    // The earliest made, as its time tells; one that cannot be placed (undated) comes last.
    const fits = input.uploadNames
      .flatMap((name) =>
        (index.get(name) ?? []).map((seen) => ({
          ...seen,
          name,
          afterMs: window.madeAfterMs(seen.created, input.sinceMs) ?? Number.POSITIVE_INFINITY,
        })),
      )
      .filter((seen) => !claimed.has(seen.jobId) && window.maySince(seen.created, input.sinceMs));
    fits.sort((a, b) => a.afterMs - b.afterMs || a.jobId.localeCompare(b.jobId));
    const pick = fits[0];
    if (pick) {
      claimed.add(pick.jobId);
      found.set(input.key, { jobId: pick.jobId, uploadName: pick.name });
    }
  }
  return found;
}

export interface ReconcileDeps<K> {
  /** The interrupted inputs whose uploads carried any of these names, with those names. */
  inputsNamed: (names: ReadonlySet<string>) => Promise<readonly InterruptedInput<K>[]>;
  /** Streams the service's jobs to a sink made afresh for each attempt (through the token gate). */
  listJobs: <S extends JobSink>(makeSink: () => S) => Promise<S>;
  /** Reads one job's content (through the token gate, under the caller's limiter). */
  jobContent: (jobId: string) => Promise<JobContentItem[]>;
  /** Which of these job ids the journals name (never given to an interrupted input). */
  namedInJournal: (jobIds: ReadonlySet<string>) => Promise<ReadonlySet<string>>;
  /** True for an error that stops the batch (refused token, interrupt): nothing is claimed then. */
  isStop: (error: unknown) => boolean;
  /** Aborted when nothing new may start (Ctrl-C). */
  stop: AbortSignal;
  /** What kept the look-up from seeing every job it looked for (the caller words it). */
  problem: (problem: LookUpProblem) => void;
  debug: (message: string) => void;
  /** This machine's clock, in ms (Date.now when absent): when each listed job was received. */
  now?: () => number;
}

/** What kept a look-up from seeing every recent job: its listing failed, the cap, jobs unread. */
export type LookUpProblem =
  | { kind: 'listing'; error: unknown }
  | { kind: 'capped'; recent: number; recentAtLeast: number }
  | { kind: 'unreadable'; count: number; error: unknown };

/**
 * How many recent jobs a capped look-up met: `480 to 520` where some zone-less ones let go for the
 * cap have times too near the window's start to tell (recent-jobs.ts).
 */
export function recentCount({ recent, recentAtLeast }: { recent: number; recentAtLeast: number }): string {
  return recentAtLeast < recent ? `${recentAtLeast} to ${recent}` : String(recent);
}

/** A look-up problem as the warning of the look-up for `count` interrupted uploads says it. */
export function interruptedWarning(problem: LookUpProblem, count: number): string {
  switch (problem.kind) {
    case 'listing':
      return `could not list the service's jobs to look for ${count} interrupted upload(s), so they are sent again: ${messageOf(problem.error)}`;
    case 'capped':
      return `${recentCount(problem)} jobs were created since the interrupted upload(s) began; only the ${RECONCILE_MAX_READS} oldest are read, so an upload whose job is among the others is sent again`;
    case 'unreadable':
      return `could not read ${problem.count} job(s) while looking for interrupted uploads (${messageOf(problem.error)}); an upload whose job is among them is sent again`;
  }
}

/**
 * Finds the jobs of interrupted uploads: one listing, each recent job read once. Returns the job id
 * found for each input (by key); an input left out is to be sent again. A failure to list the jobs
 * is a problem told to the caller (every one of them is sent again); a stop claims nothing, so that a job is never given
 * to an input on a partial view.
 */
export async function reconcile<K>(
  search: InterruptedSearch,
  deps: ReconcileDeps<K>,
): Promise<Map<K, FoundJob>> {
  const { count, sinceMs } = search;
  if (count === 0) return new Map();
  let recentJobs: RecentJobs;
  try {
    // Only the jobs that may be read are kept as the listing streams by (recent-jobs.ts).
    recentJobs = await deps.listJobs(
      () => new RecentJobs(sinceMs, deps.namedInJournal, deps.now ? { now: deps.now } : {}),
    );
  } catch (error) {
    if (!deps.isStop(error)) deps.problem({ kind: 'listing', error });
    return new Map();
  }
  // A journal that cannot be read fails the run here, as it does anywhere else.
  const found = await recentJobs.found();
  const candidates = found.jobs;
  if (found.recent > candidates.length)
    deps.problem({ kind: 'capped', recent: found.recent, recentAtLeast: found.recentAtLeast });
  deps.debug(
    `looking for ${count} interrupted upload(s) in ${candidates.length} of ${recentJobs.listed} job(s)`,
  );
  const contents: Array<{ job: Job; items: JobContentItem[] }> = [];
  let stopped = false;
  let unreadable = 0;
  let lastError: unknown;
  await Promise.all(
    candidates.map(async (job) => {
      if (stopped || deps.stop.aborted) return;
      try {
        contents.push({ job, items: await deps.jobContent(job.job_id) });
      } catch (error) {
        if (deps.isStop(error)) stopped = true;
        else if (!(error instanceof NotFoundError)) {
          unreadable++;
          lastError = error;
        }
      }
    }),
  );
  if (stopped || deps.stop.aborted) return new Map();
  if (unreadable > 0) deps.problem({ kind: 'unreadable', count: unreadable, error: lastError });
  const index = indexContents(contents);
  if (index.size === 0) return new Map();
  return matchUploads(await deps.inputsNamed(new Set(index.keys())), index, recentJobs.window);
}
