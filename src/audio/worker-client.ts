/**
 * Runs a redaction on a worker thread so a long file never blocks the
 * caller's event loop.
 *
 * The worker script is the compiled `worker.js` next to this module. When
 * this module runs from its TypeScript source (vitest imports `src/` directly,
 * and Node 20 cannot start a `.ts` worker), there is no `worker.js` beside it
 * and the job runs in-process instead — same result, just on the calling thread.
 */
import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import pLimit from 'p-limit';
import { AUDIO_WORKER_URL, RUNNING_FROM_SOURCE } from '../dist-files.js';
import { AudioDecodeError } from './errors.js';
import { redactFile } from './redact.js';
import type { RedactionOutcome, VoiceParams } from './types.js';

export interface WorkerJob {
  inputPath: string;
  outputPath: string;
  params: VoiceParams;
}

export type WorkerReply =
  { ok: true; outcome: RedactionOutcome } | { ok: false; name: string; message: string };

export function workerScript(): URL | null {
  if (existsSync(fileURLToPath(AUDIO_WORKER_URL))) return AUDIO_WORKER_URL;
  if (RUNNING_FROM_SOURCE) return null;
  // Built code without its worker is a broken build: running on the caller's thread would hide it.
  throw new Error(
    `the audio worker ${fileURLToPath(AUDIO_WORKER_URL)} is missing: build again with npm run build`,
  );
}

/** Rebuilds the worker's error on this side, keeping AudioDecodeError's class for `instanceof` checks. */
function revive(reply: { name: string; message: string }): Error {
  if (reply.name === 'AudioDecodeError') return new AudioDecodeError(reply.message);
  const err = new Error(reply.message);
  err.name = reply.name;
  return err;
}

/**
 * Redactions running at once; the others wait their turn. Each is a thread with a V8 of its own and
 * the whole recording decoded: 64 synchronous uploads of 28 s at once took 1.17 GB and 135 threads,
 * and were no sooner done than they would be a few at a time on a machine of 2 cores.
 */
const WORKERS_AT_ONCE = Math.max(2, availableParallelism());
const running = pLimit(WORKERS_AT_ONCE);

export function redactInWorker(
  inputPath: string,
  outputPath: string,
  params: VoiceParams,
): Promise<RedactionOutcome> {
  const script = workerScript();
  if (!script) return redactFile(inputPath, outputPath, params);
  const job: WorkerJob = { inputPath, outputPath, params: { ...params } };
  return running(() => runWorker(script, job));
}

/** Runs one job; settles once the thread has ended, so that its slot is free only when it is gone. */
function runWorker(script: URL, job: WorkerJob): Promise<RedactionOutcome> {
  return new Promise((resolve, reject) => {
    let reply: WorkerReply | undefined;
    let failure: Error | undefined;
    const worker = new Worker(script, { workerData: job });
    // A redaction under way must not keep a stopped sandbox alive: while it serves, its listeners
    // hold the process anyway, and with --data-dir an unfinished job is redone at the next start.
    worker.unref();
    worker.once('message', (answer: WorkerReply) => {
      reply = answer;
    });
    worker.once('error', (err) => {
      failure ??= err;
    });
    worker.once('exit', (code) => {
      if (reply?.ok) resolve(reply.outcome);
      else if (reply) reject(revive(reply));
      else reject(failure ?? new Error(`the audio worker stopped (exit code ${code}) before finishing`));
    });
  });
}
