/**
 * Interrupted uploads. An input whose last journal record is `uploading` was being sent when a run
 * died (SIGKILL, power loss): the service may have made a job of it, whose id was in an answer that
 * never reached the journal. Before anything is sent, the service's jobs are listed once, the recent
 * ones are read once each, and each such input is given the job whose content lists its upload name,
 * created when its upload started or later (less a skew allowance). A job goes to one input at most,
 * and never to one the journal already names.
 */
import { NotFoundError } from '../api/errors.js';
import type { Job, JobContentItem } from '../api/schemas.js';

/** Allowance for the difference between this machine's clock and the service's. */
export const RECONCILE_SKEW_MS = 5 * 60_000;

export interface InterruptedInput<K> {
  key: K;
  /** The multipart file name its upload carried. */
  uploadName: string;
  /** When its upload started, in ms since the epoch. */
  sinceMs: number;
  /** Its duration by the local checks, in seconds, when known. */
  durationSec?: number | undefined;
}

/** A name listed in a job's content. */
export interface SeenUpload {
  jobId: string;
  /** The item's created_at, else the job's; undefined when neither can be read. */
  createdMs: number | undefined;
  durationSec: number | undefined;
}

function timeOf(text: string | undefined): number | undefined {
  if (!text) return undefined;
  const ms = Date.parse(text);
  return Number.isFinite(ms) ? ms : undefined;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * The jobs worth reading: not named by the journal, and created no earlier than `sinceMs` less the
 * skew allowance (a job whose created_at is missing or unreadable is read too).
 */
export function candidateJobs(jobs: readonly Job[], sinceMs: number, known: ReadonlySet<string>): Job[] {
  const seen = new Set<string>();
  return jobs.filter((job) => {
    if (known.has(job.job_id) || seen.has(job.job_id)) return false;
    seen.add(job.job_id);
    const created = timeOf(job.created_at);
    return created === undefined || created >= sinceMs - RECONCILE_SKEW_MS;
  });
}

/** Upload name → the jobs whose content lists that name: built once from every job read. */
export function indexContents(
  contents: Iterable<{ job: Job; items: readonly JobContentItem[] }>,
): Map<string, SeenUpload[]> {
  const index = new Map<string, SeenUpload[]>();
  for (const { job, items } of contents) {
    const jobMs = timeOf(job.created_at);
    const names = new Set<string>();
    for (const item of items) {
      if (names.has(item.file_name)) continue;
      names.add(item.file_name);
      const seen: SeenUpload = {
        jobId: job.job_id,
        createdMs: timeOf(item.created_at) ?? jobMs,
        durationSec: typeof item.audio_duration === 'number' ? item.audio_duration : undefined,
      };
      const list = index.get(item.file_name);
      if (list) list.push(seen);
      else index.set(item.file_name, [seen]);
    }
  }
  return index;
}

/**
 * Whether a listed duration is the local one. The interface does not give the unit of
 * `audio_duration`, so this only ranks candidates (seconds assumed), it never rules one out.
 */
function sameDuration(listed: number | undefined, local: number | undefined): boolean {
  if (listed === undefined || local === undefined) return false;
  return Math.abs(listed - local) <= Math.max(1, local * 0.02);
}

/**
 * Gives each interrupted input at most one job, each job to one input at most. Inputs are served in
 * the order their uploads started; each takes, among the unclaimed jobs listing its upload name and
 * created no earlier than its start less the skew, one of the same duration first, then the earliest.
 */
export function matchUploads<K>(
  inputs: readonly InterruptedInput<K>[],
  index: ReadonlyMap<string, readonly SeenUpload[]>,
): Map<K, string> {
  const claimed = new Set<string>();
  const found = new Map<K, string>();
  for (const input of [...inputs].sort((a, b) => a.sinceMs - b.sinceMs)) {
    const cutoff = input.sinceMs - RECONCILE_SKEW_MS;
    const fits = (index.get(input.uploadName) ?? []).filter(
      (seen) => !claimed.has(seen.jobId) && (seen.createdMs === undefined || seen.createdMs >= cutoff),
    );
    const rank = (seen: SeenUpload) => (sameDuration(seen.durationSec, input.durationSec) ? 0 : 1);
    fits.sort(
      (a, b) =>
        rank(a) - rank(b) ||
        (a.createdMs ?? Number.POSITIVE_INFINITY) - (b.createdMs ?? Number.POSITIVE_INFINITY) ||
        a.jobId.localeCompare(b.jobId),
    );
    const pick = fits[0];
    if (pick) {
      claimed.add(pick.jobId);
      found.set(input.key, pick.jobId);
    }
  }
  return found;
}

export interface ReconcileDeps {
  /** Lists the service's jobs (through the token gate). */
  listJobs: () => Promise<Job[]>;
  /** Reads one job's content (through the token gate, under the caller's limiter). */
  jobContent: (jobId: string) => Promise<JobContentItem[]>;
  /** Job ids the journal names: never given to an interrupted input. */
  known: ReadonlySet<string>;
  /** True for an error that stops the batch (refused token, interrupt): nothing is claimed then. */
  isStop: (error: unknown) => boolean;
  /** Aborted when nothing new may start (Ctrl-C). */
  stop: AbortSignal;
  warn: (message: string) => void;
  debug: (message: string) => void;
}

/**
 * Finds the jobs of interrupted uploads: one listing, each recent job read once. Returns the job id
 * found for each input (by key); an input left out is to be sent again. A failure to list the jobs
 * is a warning (every one of them is sent again); a stop claims nothing, so that a job is never given
 * to an input on a partial view.
 */
export async function reconcile<K>(
  inputs: readonly InterruptedInput<K>[],
  deps: ReconcileDeps,
): Promise<Map<K, string>> {
  if (inputs.length === 0) return new Map();
  let jobs: Job[];
  try {
    jobs = await deps.listJobs();
  } catch (error) {
    if (!deps.isStop(error)) {
      deps.warn(
        `could not list the service's jobs to look for ${inputs.length} interrupted upload(s), so they are sent again: ${messageOf(error)}`,
      );
    }
    return new Map();
  }
  const sinceMs = inputs.reduce((min, input) => Math.min(min, input.sinceMs), Number.POSITIVE_INFINITY);
  const candidates = candidateJobs(jobs, sinceMs, deps.known);
  deps.debug(
    `looking for ${inputs.length} interrupted upload(s) in ${candidates.length} of ${jobs.length} job(s)`,
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
  if (unreadable > 0) {
    deps.warn(
      `could not read ${unreadable} job(s) while looking for interrupted uploads (${messageOf(lastError)}); an upload whose job is among them is sent again`,
    );
  }
  return matchUploads(inputs, indexContents(contents));
}
