/**
 * The promise to cron jobs, by experiment: kill `vredact redact` at random moments (SIGKILL, or a
 * first Ctrl-C), run it again until a run exits 0, then check what vredact promises (see
 * test/helpers/chaos-round.ts): one whole output per input that is its own result, nothing left
 * beside the outputs, the journal and `status` all done, nothing sent twice that vredact promises
 * not to send twice. Against a service that never fails, then against one that fails some uploads
 * now and then (503, 500, a 502 or a dropped connection after taking it in, an answer cut short) and
 * some reads of its jobs: an upload whose answer was lost may have made a job, which the next run
 * must find by its upload name before it sends the file again.
 *
 * Each round is deterministic by its seed (a round's name says it; the interleaving of the processes
 * is not). The suite runs a few; by hand, run many:
 *   CHAOS_ROUNDS=200 CHAOS_SEED=1000 CHAOS_LOG=1 npx vitest run test/e2e/redact-chaos.test.ts
 * (CHAOS_LOG prints each round's runs: how each ended, uploads and jobs).
 * Build first: `npm run build`.
 */
import { describe, it } from 'vitest';
import { mulberry32 } from '../../src/audio/prng.js';
import { chaosConcurrency } from '../helpers/chaos.js';
import { endingsOf, type Lane, makeInputs, runLane, withRound } from '../helpers/chaos-round.js';
import { expectAllDone, expectNeverSentTwice } from '../helpers/chaos-checks.js';
import type { AnswerKind, ReadFault, UploadFault } from '../helpers/chaos-service.js';

const ROUNDS = Number(process.env.CHAOS_ROUNDS ?? 3);
const FIRST_SEED = Number(process.env.CHAOS_SEED ?? 1);
const MODES = ['sync', 'job', 'mix'] as const;
const UPLOAD_FAULTS: UploadFault[] = [
  'refused-503',
  'failed-500',
  'taken-502',
  'dropped',
  'taken-dropped',
  'cut',
];
const READ_FAULTS: ReadFault[] = ['failed-500', 'dropped', 'cut'];

/** A byte of an input's hash, for choices that must not depend on the order uploads come in. */
const byteOf = (sha: string, at: number) => parseInt(sha.slice(2 * at, 2 * at + 2), 16);

async function round(seed: number, faults: boolean): Promise<void> {
  const random = mulberry32(seed);
  const mode = MODES[seed % MODES.length] as (typeof MODES)[number];
  const count = 30 + Math.floor(random() * 31);
  const concurrency = chaosConcurrency(4 + Math.floor(random() * 5));
  const inputs = makeInputs(count, random);
  // About one upload in four fails, for its first two attempts at most; one read of a job in five.
  const salt = Math.floor(random() * 256);
  const options = {
    answer: (sha: string): AnswerKind =>
      mode === 'mix' ? ((byteOf(sha, 0) & 1) === 0 ? 'sync' : 'job') : mode,
    readsBeforeReady: (sha: string) => byteOf(sha, 1) % 2,
    ...(faults
      ? {
          fault: (sha: string, attempt: number) =>
            attempt < 2 && (byteOf(sha, 2 + attempt) ^ salt) % 4 === 0
              ? UPLOAD_FAULTS[(byteOf(sha, 4 + attempt) ^ salt) % UPLOAD_FAULTS.length]
              : undefined,
          readFault: (sha: string, read: number) =>
            read < 2 && (byteOf(sha, 6 + read) ^ salt) % 5 === 0
              ? READ_FAULTS[byteOf(sha, 8 + read) % READ_FAULTS.length]
              : undefined,
        }
      : {}),
  };
  await withRound(seed, inputs, options, async (chaos, env) => {
    const lane: Lane = {
      name: 'redact',
      args: ['redact', 'in', '-o', 'out', '-c', String(concurrency), '-q'],
      env,
      owns: () => true,
    };
    await runLane(chaos, lane, seed);
    if (process.env.CHAOS_LOG) {
      const { uploads, jobs } = chaos.service;
      const failed = uploads.filter((upload) => upload.fault).length;
      console.log(
        `seed ${seed} ${mode}${faults ? ' faults' : ''} ${count} inputs -c ${concurrency}: ${endingsOf(chaos)}; ${uploads.length} uploads (${failed} failed), ${jobs.size} jobs`,
      );
    }
    await expectAllDone(chaos, env, ['journal.jsonl']);
    expectNeverSentTwice(chaos);
  });
}

describe('vredact redact killed at random moments (SIGKILL, Ctrl-C), then run again until it exits 0', () => {
  for (let seed = FIRST_SEED; seed < FIRST_SEED + ROUNDS; seed++) {
    it(`seed ${seed} (replay: CHAOS_SEED=${seed} CHAOS_ROUNDS=1)`, { timeout: 180_000 }, async () => {
      await round(seed, false);
    });
  }
});

describe('… while the service fails uploads and reads of jobs now and then (5xx, dropped connections)', () => {
  for (let seed = FIRST_SEED; seed < FIRST_SEED + ROUNDS; seed++) {
    it(`seed ${seed} (replay: CHAOS_SEED=${seed} CHAOS_ROUNDS=1)`, { timeout: 180_000 }, async () => {
      await round(seed, true);
    });
  }
});
