/**
 * The fan-out: local checks, uploads (at most `concurrency` at once), and the waiting for
 * asynchronous jobs, which holds no upload slot: a job's polls and its download go through their own
 * small limiter, and between polls it only sleeps.
 */

import { setMaxListeners } from 'node:events';
import type { ApiClient } from '../api/client.js';
import { ApiError, isTokenRefused, NotFoundError } from '../api/errors.js';
import { backoffDelay, RETRYABLE_STATUSES } from '../api/retry.js';
import type { JobContentItem } from '../api/schemas.js';
import { uploadMayHaveBeenAccepted } from '../api/upload-fate.js';
import type { Clock } from '../clock.js';
import { writeFileAtomically } from '../fs/atomic-write.js';
import type { Logger } from '../output/logger.js';
import { GateClosedError, TokenGate } from './gate.js';
import type { JournalRecord, JournalWriter } from './journal.js';
import type { RedactOptions } from './options.js';
import type { PlanEntry } from './plan.js';
import { formatDuration, type ProbeResult, probeFile } from './probe.js';
import { reconcile } from './reconcile.js';
import type { Outcome, Progress as RunProgress } from './report.js';

/** What the pipeline knows of the run's progress; the batch adds the counts of the whole run. */
export type PipelineProgress = Pick<
  RunProgress,
  'queued' | 'inFlight' | 'waiting' | 'done' | 'failed' | 'rejected' | 'bytesSent' | 'bytesTotal'
>;

/**
 * The part of the service client the pipeline uses (a fake in tests). A job's result is fetched in
 * the two steps of `downloadJobFile` (`downloadUrl`, then `downloadSigned`) so that a 401/403 from the
 * signed URL's host (an expired URL) is not taken for a refused token.
 */
export type RedactClient = Pick<
  ApiClient,
  'redact' | 'listJobs' | 'jobContent' | 'downloadUrl' | 'downloadSigned'
>;

/**
 * Ctrl-C, as signals: `stop` (first interrupt) starts nothing new and lets what is in flight finish;
 * `abort` (second interrupt) aborts what is in flight.
 */
export interface Interrupt {
  stop: AbortSignal;
  abort: AbortSignal;
}

export interface PipelineItem {
  entry: PlanEntry;
  /** reconcile: an upload of it was cut short; its job, if the service made one, is looked for first. */
  action: 'send' | 'collect' | 'reconcile';
  /** The input's last journal record, if any. */
  record?: JournalRecord | undefined;
  /** collect: the job to collect; collect, reconcile: the name its upload carried. */
  jobId?: string;
  uploadName?: string;
  /** reconcile: when the upload started, its local duration, and what to do when no job of it is found. */
  interrupted?: {
    sinceMs: number;
    durationSec?: number | undefined;
    otherwise: { action: 'send' } | { action: 'skip'; reason: string };
  };
  /** Size and modification time as found when planning. */
  size: number;
  mtimeMs: number;
}

export interface PipelineDeps {
  client: RedactClient;
  journal: JournalWriter;
  clock: Clock;
  log: Logger;
  /** The multipart fields of the target voice, and their fingerprint. */
  fields: Readonly<Record<string, string>>;
  fingerprint: string;
  /** Job ids the journal names: never taken for the job of an interrupted upload. */
  knownJobIds?: ReadonlySet<string>;
  concurrency: number;
  options: Pick<RedactOptions, 'wait' | 'waitTimeoutMs' | 'maxSize' | 'maxDurationSec'>;
  interrupt: Interrupt;
  /** Each file's final outcome, as soon as it is known. */
  emit: (outcome: Outcome, item: PipelineItem) => void;
  onProgress?: (progress: PipelineProgress) => void;
}

export interface PipelineResult {
  /** Set when the service refused the token: the batch stopped at once. */
  tokenRefused?: unknown;
}

const POLL_BASE_MS = 1000;
const POLL_CAP_MS = 30_000;
const POLL_MIN_MS = 500;
/** Consecutive failed polls of one job (after the client's own retries) before it is left pending. */
const MAX_POLL_FAILURES = 8;

function basenameOf(path: string): string {
  return path.slice(Math.max(path.lastIndexOf('/'), path.lastIndexOf('\\')) + 1);
}

function looseName(name: string): string {
  return name
    .normalize('NFC')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, '_');
}

/**
 * The result among a job's content items: a WAV item that is not the uploaded file itself (compared
 * exactly and loosely, in case the service tidied the name). The latest when there are several.
 */
export function pickResult(items: readonly JobContentItem[], uploadName: string): JobContentItem | undefined {
  const own = looseName(uploadName);
  const candidates = items.filter(
    (item) =>
      /\.wav$/i.test(item.file_name) && item.file_name !== uploadName && looseName(item.file_name) !== own,
  );
  if (candidates.length <= 1) return candidates[0];
  const byId = (item: JobContentItem) => (/^\d+$/.test(item.id) ? Number(item.id) : Number.NaN);
  return [...candidates].sort((a, b) => {
    const ids = byId(a) - byId(b);
    if (!Number.isNaN(ids) && ids !== 0) return ids;
    return a.created_at.localeCompare(b.created_at);
  })[candidates.length - 1];
}

function isAbort(error: unknown): boolean {
  return (
    error instanceof Error &&
    (error.name === 'AbortError' || (error as { code?: string }).code === 'ABORT_ERR')
  );
}

/** A failure that will not change by asking again: the file or the job itself is the problem. */
function isPermanent(error: unknown): boolean {
  return (
    error instanceof ApiError &&
    error.status !== undefined &&
    error.status >= 400 &&
    !RETRYABLE_STATUSES.has(error.status)
  );
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

export async function runPipeline(
  items: readonly PipelineItem[],
  deps: PipelineDeps,
): Promise<PipelineResult> {
  const { default: pLimit } = await import('p-limit');
  const { client, journal, clock, log, options, interrupt } = deps;
  const uploads = pLimit(deps.concurrency);
  const probes = pLimit(Math.min(8, Math.max(2, deps.concurrency)));
  const requests = pLimit(Math.max(4, deps.concurrency));
  const halt = new AbortController();
  const stopSignal = AbortSignal.any([interrupt.stop, interrupt.abort, halt.signal]);
  const abortSignal = AbortSignal.any([interrupt.abort, halt.signal]);
  // Every request and every wait listens to these: thousands of files are not a leak.
  setMaxListeners(0, stopSignal, abortSignal, halt.signal, interrupt.stop, interrupt.abort);
  const result: PipelineResult = {};
  // The first refusal halts everything before another request can start (see TokenGate).
  const gate = new TokenGate((error) => {
    result.tokenRefused = error;
    halt.abort(new GateClosedError(error));
  });
  const progress: PipelineProgress = {
    queued: items.filter((item) => item.action !== 'collect').length,
    inFlight: 0,
    waiting: 0,
    done: 0,
    failed: 0,
    rejected: 0,
    bytesSent: 0,
    bytesTotal: 0,
  };
  const changed = () => deps.onProgress?.({ ...progress });
  changed();

  const now = () => new Date(clock.now()).toISOString();
  const base = (item: PipelineItem) => ({
    input: item.entry.realPath,
    size: item.size,
    mtimeMs: item.mtimeMs,
    options: deps.fingerprint,
    output: item.entry.outputRel,
  });
  const finish = (item: PipelineItem, outcome: Omit<Outcome, 'input' | 'output'>) => {
    if (outcome.status === 'done') progress.done++;
    if (outcome.status === 'failed') progress.failed++;
    if (outcome.status === 'rejected') progress.rejected++;
    changed();
    deps.emit({ input: item.entry.display, output: item.entry.outputDisplay, ...outcome }, item);
  };
  const stoppedReason = () =>
    result.tokenRefused ? 'not finished: the service refused the token' : 'not finished: interrupted';
  const fail = async (item: PipelineItem, error: unknown, jobId?: string) => {
    const reason = messageOf(error);
    await journal
      .append({ at: now(), event: 'failed', ...base(item), reason, ...(jobId ? { jobId } : {}) })
      .catch(() => {});
    finish(item, { status: 'failed', reason, ...(jobId ? { jobId } : {}) });
  };
  /** Classifies a request's error; returns true when it was handled as a stop (token refused, interrupt). */
  const stopped = (item: PipelineItem, error: unknown, jobId?: string): boolean => {
    if (isTokenRefused(error)) {
      // A job already submitted stays on record (submitted): a later run with a good token collects it.
      if (jobId) finish(item, { status: 'pending', jobId, reason: messageOf(error) });
      else finish(item, { status: 'failed', reason: messageOf(error) });
      return true;
    }
    if (error instanceof GateClosedError || isAbort(error) || abortSignal.aborted) {
      finish(item, { status: 'pending', reason: stoppedReason(), ...(jobId ? { jobId } : {}) });
      return true;
    }
    return false;
  };

  const waitForJob = async (item: PipelineItem, jobId: string, uploadName: string, fresh: boolean) => {
    if (fresh && !options.wait) {
      finish(item, {
        status: 'pending',
        jobId,
        reason: `submitted as job ${jobId}; a later run collects it`,
      });
      return;
    }
    progress.waiting++;
    changed();
    try {
      const deadline = clock.now() + options.waitTimeoutMs;
      let attempt = 0;
      let failures = 0;
      let lastError: unknown;
      for (;;) {
        if (stopSignal.aborted) {
          finish(item, {
            status: 'pending',
            jobId,
            reason: `${stoppedReason()}; job ${jobId} is collected by a later run`,
          });
          return;
        }
        try {
          const content = await requests(() =>
            gate.run(() => client.jobContent(jobId, abortSignal), abortSignal),
          );
          const found = pickResult(content, uploadName);
          if (found) {
            const url = await requests(() =>
              gate.run(() => client.downloadUrl(jobId, found.file_name, abortSignal), abortSignal),
            );
            const bytes = await requests(() =>
              // A refused link (LinkRefusedError) is not permanent: the next poll asks for a new one.
              client.downloadSigned(
                url,
                ({ body }) => writeFileAtomically(item.entry.output, body, abortSignal),
                abortSignal,
              ),
            );
            await journal.append({ at: now(), event: 'done', ...base(item), jobId, via: 'job', bytes });
            finish(item, { status: 'done', jobId });
            return;
          }
          failures = 0;
        } catch (error) {
          if (stopped(item, error, jobId)) return;
          if (error instanceof NotFoundError || isPermanent(error)) {
            // The job is gone or refused for good: a later run sends the file again.
            await fail(item, error, jobId);
            return;
          }
          failures++;
          lastError = error;
          log.debug(`job ${jobId}: ${messageOf(error)}`);
          if (failures >= MAX_POLL_FAILURES) {
            finish(item, {
              status: 'pending',
              jobId,
              reason: `job ${jobId} could not be checked: ${messageOf(error)}`,
            });
            return;
          }
        }
        if (!options.wait) {
          finish(item, {
            status: 'pending',
            jobId,
            reason: `job ${jobId} is still processing; a later run collects it`,
          });
          return;
        }
        const remaining = deadline - clock.now();
        if (remaining <= 0) {
          const why = lastError && failures > 0 ? ` (last error: ${messageOf(lastError)})` : '';
          finish(item, {
            status: 'pending',
            jobId,
            reason: `job ${jobId} not finished after ${formatDuration(options.waitTimeoutMs / 1000)} (--wait-timeout); a later run collects it${why}`,
          });
          return;
        }
        const delay = Math.min(
          remaining,
          Math.max(POLL_MIN_MS, backoffDelay(attempt++, clock.random, POLL_BASE_MS, POLL_CAP_MS)),
        );
        await clock.sleep(delay, stopSignal).catch(() => {});
      }
    } finally {
      progress.waiting--;
      changed();
    }
  };

  const send = async (item: PipelineItem) => {
    const probe: ProbeResult | undefined = await probes(() =>
      stopSignal.aborted ? undefined : probeFile(item.entry.input, options),
    );
    if (!probe) {
      progress.queued--;
      finish(item, { status: 'pending', reason: `${stoppedReason()} (not sent)` });
      return;
    }
    if (!probe.ok) {
      progress.queued--;
      const last = item.record;
      const sameRejection =
        last?.event === 'rejected' &&
        last.reason === probe.reason &&
        last.size === probe.size &&
        last.mtimeMs === probe.mtimeMs;
      if (!sameRejection && probe.size !== undefined && probe.mtimeMs !== undefined) {
        await journal
          .append({
            at: now(),
            event: 'rejected',
            ...base(item),
            size: probe.size,
            mtimeMs: probe.mtimeMs,
            reason: probe.reason,
          })
          .catch(() => {});
      }
      finish(item, { status: 'rejected', reason: probe.reason });
      return;
    }
    const sent = { ...item, size: probe.size, mtimeMs: probe.mtimeMs };
    progress.bytesTotal += probe.size;
    const uploadName = basenameOf(item.entry.input);
    type Uploaded = { kind: 'audio'; bytes: number } | { kind: 'job'; jobId: string } | { kind: 'stopped' };
    let uploaded: Uploaded;
    try {
      uploaded = await uploads(async (): Promise<Uploaded> => {
        progress.queued--;
        if (stopSignal.aborted) return { kind: 'stopped' };
        progress.inFlight++;
        changed();
        try {
          const answer = await gate.run(async () => {
            // On disk before the first byte is sent: if this run dies before the answer is journaled,
            // the next one looks for the job the upload may have become instead of sending it again.
            await journal
              .append(
                {
                  at: now(),
                  event: 'uploading',
                  ...base(sent),
                  uploadName,
                  durationSec: probe.durationSec,
                },
                true,
              )
              .catch((error: unknown) => {
                throw new Error(`not sent: the journal could not be written: ${messageOf(error)}`);
              });
            return client.redact(
              item.entry.input,
              deps.fields,
              uploadName,
              ({ body }) => writeFileAtomically(item.entry.output, body, abortSignal),
              abortSignal,
            );
          }, abortSignal);
          progress.bytesSent += probe.size;
          // Recorded before the slot is given back: a job id is on disk before anything else happens.
          if (answer.kind === 'job') {
            await journal
              .append({ at: now(), event: 'submitted', ...base(sent), jobId: answer.jobId, uploadName }, true)
              .catch((error: unknown) => {
                throw new Error(
                  `submitted as job ${answer.jobId}, but the journal could not be written: ${messageOf(error)}`,
                );
              });
          } else {
            await journal.append({
              at: now(),
              event: 'done',
              ...base(sent),
              via: 'sync',
              bytes: answer.result,
            });
          }
          return answer.kind === 'job' ? answer : { kind: 'audio', bytes: answer.result };
        } finally {
          progress.inFlight--;
          changed();
        }
      });
    } catch (error) {
      if (stopped(sent, error)) return;
      if (uploadMayHaveBeenAccepted(error)) {
        // The service may have accepted the upload before the failure: the journal keeps `uploading`
        // as this input's latest record, so the next run looks for its job before sending again.
        finish(sent, {
          status: 'failed',
          reason: `${messageOf(error)}; the service may have taken it: the next run looks for its job before sending again`,
        });
        return;
      }
      await fail(sent, error);
      return;
    }
    if (uploaded.kind === 'stopped') {
      finish(sent, { status: 'pending', reason: `${stoppedReason()} (not sent)` });
      return;
    }
    if (uploaded.kind === 'audio') {
      finish(sent, { status: 'done' });
      return;
    }
    await waitForJob(sent, uploaded.jobId, uploadName, true);
  };

  /** An interrupted upload: collect the job found for it, or do what its earlier record says. */
  const settleInterrupted = async (item: PipelineItem, jobId: string | undefined) => {
    const uploadName = item.uploadName ?? basenameOf(item.entry.input);
    if (jobId) {
      progress.queued--;
      changed();
      try {
        await journal.append(
          { at: now(), event: 'submitted', ...base(item), jobId, uploadName, reconciled: true },
          true,
        );
      } catch (error) {
        await fail(
          item,
          new Error(
            `job ${jobId} was found for it, but the journal could not be written: ${messageOf(error)}`,
          ),
          jobId,
        );
        return;
      }
      log.debug(`${item.entry.display}: its interrupted upload had become job ${jobId}; collecting it`);
      await waitForJob(item, jobId, uploadName, false);
      return;
    }
    const otherwise = item.interrupted?.otherwise ?? { action: 'send' };
    if (otherwise.action === 'send') return send(item);
    progress.queued--;
    if (stopSignal.aborted) finish(item, { status: 'pending', reason: `${stoppedReason()} (not checked)` });
    else finish(item, { status: 'skipped', reason: otherwise.reason });
  };

  // Before anything is sent: an upload of this run could otherwise pass for an interrupted one.
  const interrupted = items.filter((item) => item.action === 'reconcile');
  const found = await reconcile(
    interrupted.map((item) => ({
      key: item,
      uploadName: item.uploadName ?? basenameOf(item.entry.input),
      sinceMs: item.interrupted?.sinceMs ?? Number.NEGATIVE_INFINITY,
      durationSec: item.interrupted?.durationSec,
    })),
    {
      listJobs: () => gate.run(() => client.listJobs(abortSignal), abortSignal),
      jobContent: (jobId) =>
        requests(() => gate.run(() => client.jobContent(jobId, abortSignal), abortSignal)),
      known: deps.knownJobIds ?? new Set(),
      isStop: (error) =>
        isTokenRefused(error) || error instanceof GateClosedError || isAbort(error) || abortSignal.aborted,
      stop: stopSignal,
      warn: (message) => log.warn(message),
      debug: (message) => log.debug(message),
    },
  );

  await Promise.all(
    items.map((item) => {
      if (item.action === 'collect') {
        return waitForJob(item, item.jobId ?? '', item.uploadName ?? basenameOf(item.entry.input), false);
      }
      if (item.action === 'reconcile') return settleInterrupted(item, found.get(item));
      return send(item);
    }),
  );
  return result;
}
