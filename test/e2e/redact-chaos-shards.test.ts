/**
 * Shards on one output folder, by experiment: 2 or 3 `vredact redact --shard i/n` (or
 * `VREDACT_SHARD=i/n`) started at once on the same inputs and output folder, each killed at random
 * moments (SIGKILL, or a first Ctrl-C) and run again until it exits 0, meanwhile the others go on.
 * Then what vredact promises of shards, beside what it promises of any run (test/helpers/chaos-round.ts):
 * every input is sent by its own shard only, each shard's journal holds its own inputs, `status`
 * reads them all and says all done, and each shard sweeps its own temporary files (left by a run that
 * died, whatever its pid) and never another's: a temporary file of another share, or one no shard
 * marked whose writer may be alive, is left where it is. On odd seeds the service fails some uploads.
 *
 * Deterministic by its seed, but for the interleaving of the processes. By hand:
 *   CHAOS_ROUNDS=100 CHAOS_SEED=1000 CHAOS_LOG=1 npx vitest run test/e2e/redact-chaos-shards.test.ts
 * Build first: `npm run build`.
 */
import { mkdir, readdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { mulberry32 } from '../../src/audio/prng.js';
import { chaosConcurrency } from '../helpers/chaos.js';
import { shardOf } from '../../src/redact/plan.js';
import { chooseKill, endingsOf, type Lane, makeInputs, runLane, withRound } from '../helpers/chaos-round.js';
import { expectAllDone, expectNeverSentTwice } from '../helpers/chaos-checks.js';
import type { UploadFault } from '../helpers/chaos-service.js';
import { OUR_SPACE_TAG, temporaryNameOf } from '../helpers/process-space.js';

const ROUNDS = Number(process.env.CHAOS_ROUNDS ?? 2);
const FIRST_SEED = Number(process.env.CHAOS_SEED ?? 1);
const FAULTS: UploadFault[] = ['refused-503', 'failed-500', 'taken-502', 'dropped', 'taken-dropped', 'cut'];

/** A temporary file's name as a run in this process space gives it, this live process's pid in it. */
const partialName = (mark: string, hex: string) => temporaryNameOf(process.pid, OUR_SPACE_TAG, hex, mark);

async function round(seed: number): Promise<void> {
  const random = mulberry32(seed);
  const count = 2 + (seed % 2);
  const inputs = makeInputs(30 + Math.floor(random() * 31), random);
  const concurrency = chaosConcurrency(2 + Math.floor(random() * 4));
  const faults = seed % 2 === 1;
  const byte = (sha: string, at: number) => parseInt(sha.slice(2 * at, 2 * at + 2), 16);
  const options = {
    answer: (sha: string) => ((byte(sha, 0) & 1) === 0 ? ('sync' as const) : ('job' as const)),
    readsBeforeReady: (sha: string) => byte(sha, 1) % 2,
    ...(faults
      ? {
          fault: (sha: string, attempt: number) =>
            attempt === 0 && byte(sha, 2) % 4 === 0 ? FAULTS[byte(sha, 3) % FAULTS.length] : undefined,
        }
      : {}),
  };
  await withRound(seed, inputs, options, async (chaos, env) => {
    // Left by dead runs, each shard's own (written by this live process: a pid tells nothing of a
    // shard's files), and two no shard may remove: another count's, and one of no shard whose
    // writer (this process) is alive.
    const state = join(chaos.out, '.vredact');
    const own = Array.from({ length: count }, (_, i) => partialName(`-${i + 1}-of-${count}`, String(i)));
    const foreign = [partialName(`-1-of-${count + 2}`, 'e'), partialName('', 'f')];
    await mkdir(state, { recursive: true, mode: 0o700 });
    for (const folder of [chaos.out, state]) {
      for (const name of [...own, ...foreign]) await writeFile(join(folder, name), 'left by a dead run');
    }

    const lanes: Lane[] = Array.from({ length: count }, (_, i) => {
      const shard = `${i + 1}/${count}`;
      const byEnv = random() < 0.5;
      const share = inputs.filter((input) => shardOf(input.rel, count) === i).length;
      return {
        name: `shard ${shard}${byEnv ? ' (VREDACT_SHARD)' : ''}`,
        args: [
          'redact',
          'in',
          '-o',
          'out',
          '-c',
          String(concurrency),
          '-q',
          ...(byEnv ? [] : ['--shard', shard]),
        ],
        env: byEnv ? { ...env, VREDACT_SHARD: shard } : env,
        owns: (input) => shardOf(input.rel, count) === i,
        kill: (_index, laneRandom) => chooseKill(laneRandom, Math.max(share, 1)),
      };
    });
    const ended = await Promise.allSettled(lanes.map((lane, i) => runLane(chaos, lane, seed * 16 + i)));
    for (const end of ended) if (end.status === 'rejected') throw end.reason;
    if (process.env.CHAOS_LOG) {
      const { uploads, jobs } = chaos.service;
      const failed = uploads.filter((upload) => upload.fault).length;
      const runs = lanes.map((lane) => `${lane.name}: ${endingsOf(chaos, lane)}`).join('; ');
      console.log(
        `seed ${seed} ${inputs.length} inputs, ${count} shards -c ${concurrency}: ${runs}; ${uploads.length} uploads (${failed} failed), ${jobs.size} jobs`,
      );
    }

    // Each shard swept its own leftovers, beside the outputs and in the journals' folder, and no other.
    for (const folder of [chaos.out, state]) {
      const partials = (await readdir(folder)).filter((name) => name.endsWith('.vredact-partial'));
      expect(partials.sort(), folder).toEqual([...foreign].sort());
      for (const name of foreign) await rm(join(folder, name));
    }
    const journals = Array.from({ length: count }, (_, i) => `journal.${i + 1}-of-${count}.jsonl`);
    await expectAllDone(chaos, env, journals);
    expectNeverSentTwice(chaos);
  });
}

describe('shards of one output folder killed at random moments, each run again until it exits 0', () => {
  for (let seed = FIRST_SEED; seed < FIRST_SEED + ROUNDS; seed++) {
    it(`seed ${seed} (replay: CHAOS_SEED=${seed} CHAOS_ROUNDS=1)`, { timeout: 180_000 }, async () => {
      await round(seed);
    });
  }
});
