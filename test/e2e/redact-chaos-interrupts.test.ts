/**
 * Stops while asynchronous jobs are being collected, by experiment: every upload is answered with a
 * job, and each job's result download sends half its bytes, then holds the rest a while, so more jobs
 * wait for a turn than the run's max(4, `-c`) requests at once. A run is stopped at a random request
 * by a first Ctrl-C or SIGTERM, then maybe a second interrupt (aborting what is in flight) and maybe a
 * SIGKILL, and run again until it exits 0 (see test/helpers/chaos-round.ts). After every run: exit 130
 * for an interrupt, each output standing whole and its own job's result, nothing under an output name
 * half-written. In the end: one verified output per input, the journal and `status` all done, and no
 * input uploaded twice, as every upload made a job that a later run must find and collect.
 *
 * Deterministic by its seed, but for the timing of the processes. The suite runs two; by hand:
 *   CHAOS_SEEDS=1-60 CHAOS_LOG=1 npx vitest run test/e2e/redact-chaos-interrupts.test.ts
 * Build first: `npm run build`.
 */
import { describe, it } from 'vitest';
import { mulberry32 } from '../../src/audio/prng.js';
import { chaosConcurrency, seeds } from '../helpers/chaos.js';
import { endingsOf, type Kill, type Lane, makeInputs, runLane, withRound } from '../helpers/chaos-round.js';
import { expectAllDone, expectNeverSentTwice } from '../helpers/chaos-checks.js';

/** More than this apart, a second signal is a second interrupt (the same one twice within 0.1 s is one). */
const APART_MS = 150;

/**
 * A first Ctrl-C or SIGTERM at a random request (none, when the run makes fewer), then maybe a second
 * interrupt, maybe a SIGKILL.
 */
function chooseStop(random: () => number, requests: number): Kill {
  const first: NodeJS.Signals = random() < 0.5 ? 'SIGINT' : 'SIGTERM';
  const atRequest = 1 + Math.floor(random() * requests);
  const then: NonNullable<Kill['then']> = [];
  const roll = random();
  if (roll < 0.4) {
    const second: NodeJS.Signals = random() < 0.7 ? 'SIGINT' : 'SIGTERM';
    then.push({ afterMs: APART_MS + Math.floor(random() * 300), signal: second });
  }
  if (roll > 0.25 && roll < 0.6) then.push({ afterMs: Math.floor(random() * 1500), signal: 'SIGKILL' });
  return { trigger: { atRequest, moment: 'before-answer', signal: first }, then };
}

async function round(seed: number): Promise<void> {
  const random = mulberry32(seed);
  const count = 10 + Math.floor(random() * 11);
  const concurrency = chaosConcurrency([1, 2, 4, 6][Math.floor(random() * 4)] as number);
  const inputs = makeInputs(count, random);
  const holdMs = new Map(inputs.map((input) => [input.sha, 200 + Math.floor(random() * 1000)]));
  const options = {
    answer: () => 'job' as const,
    readsBeforeReady: (sha: string) => parseInt(sha.slice(0, 2), 16) % 2,
    downloadHoldMs: (sha: string) => holdMs.get(sha) ?? 0,
  };
  await withRound(seed, inputs, options, async (chaos, env) => {
    // Jobs whose waits a first interrupt stopped, over the round's runs: it came while collecting.
    let jobsStopped = 0;
    // Runs a second interrupt reached before they ended (it aborts what is in flight).
    let interruptedTwice = 0;
    const lane: Lane = {
      name: 'redact',
      args: ['redact', 'in', '-o', 'out', '-c', String(concurrency), '-q'],
      env,
      owns: () => true,
      // An upload, a read or two of its job, a link and a download: about four requests per input.
      kill: (_index, laneRandom) => chooseStop(laneRandom, count * 4),
      afterRun: async (_index, _ending, context) => {
        jobsStopped += Number(/stopping the waits for (\d+) jobs/.exec(context)?.[1] ?? 0);
        if (context.includes('a third interrupt exits at once')) interruptedTwice++;
      },
    };
    await runLane(chaos, lane, seed);
    if (process.env.CHAOS_LOG) {
      const { uploads, jobs } = chaos.service;
      console.log(
        `seed ${seed} ${count} inputs -c ${concurrency}: ${endingsOf(chaos)}; ${uploads.length} uploads, ${jobs.size} jobs, ${jobsStopped} jobs' waits stopped, ${interruptedTwice} runs given a second interrupt`,
      );
    }
    await expectAllDone(chaos, env, ['journal.jsonl']);
    expectNeverSentTwice(chaos);
  });
}

describe('redact stopped (Ctrl-C, SIGTERM, a second interrupt, SIGKILL) while collecting held jobs', () => {
  for (const seed of seeds()) {
    it(`seed ${seed} (replay: CHAOS_SEEDS=${seed})`, { timeout: 180_000 }, async () => {
      await round(seed);
    });
  }
});
