/**
 * `vredact redact` against a flaky network and a misbehaving service, by experiment: a fault proxy
 * (test/helpers/fault-proxy.ts) in front of `vredact sandbox` resets, stalls, cuts, throttles and
 * corrupts a random share of the requests, by a seed. Whatever the faults, the run ends; each input
 * is done with a whole WAV the service sent for it, or failed or pending with a one-line reason; the
 * exit code says which; nothing else stands in the output folder; stderr has no stack trace, no raw
 * control character and never the token; a re-run without faults finishes the rest and uploads
 * nothing already done.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import {
  type ChaosBench,
  chaosConcurrency,
  expectCleanOutput,
  expectNoTokenInFiles,
  FAULTY_RUN_FLAGS,
  faultLog,
  RATE,
  seeds,
  sha256,
  STALL_MS,
  startChaosBench,
  TEST_TIMEOUT_MS,
  wavSeconds,
} from '../helpers/chaos.js';
import { runCli } from '../helpers/cli.js';
import { jsonLines, listFiles } from '../helpers/e2e.js';
import { type FaultProxy, startFaultProxy } from '../helpers/fault-proxy.js';

const INPUTS = 20;

let bench: ChaosBench;
beforeAll(async () => {
  bench = await startChaosBench(INPUTS);
});
afterAll(async () => {
  await bench?.cleanup();
});

interface FileLine {
  input: string;
  status: string;
  reason?: string;
}

const stemOf = (path: string) => (path.split('/').pop() ?? '').split('.')[0] ?? '';

describe.each(seeds())('seed %i', (seed) => {
  test(
    'every input ends done and whole, or failed or pending with a reason; a clean re-run finishes the rest',
    async () => {
      const { sandbox, dir, durations } = bench;
      const proxy = await startFaultProxy(sandbox.baseUrl, { seed, rate: RATE, stallMs: STALL_MS });
      const out = join(dir, `out-${seed}`);
      const options = bench.runOptions(proxy, join(dir, `config-${seed}`));
      try {
        const concurrency = chaosConcurrency();
        const args = ['redact', 'in', '-o', out, '--json', ...FAULTY_RUN_FLAGS];
        if (concurrency !== undefined) args.push('-c', String(concurrency));
        args.push('--max-outage-wait', '10s', '--wait-timeout', '40s');
        const first = await runCli(args, options);
        const context = `${faultLog(seed, proxy)}\n--- first run ---\n${String(first.stdout)}\n${String(first.stderr)}`;
        expect(first.timedOut, context).toBe(false);
        expectCleanOutput('first run', first, sandbox.token);
        const lines = jsonLines(first.stdout).filter((line) => 'input' in line) as unknown as FileLine[];
        expect(lines.map((line) => stemOf(line.input)).sort(), context).toEqual([...durations.keys()]);
        const done = new Set(
          lines.filter((line) => line.status === 'done').map((line) => stemOf(line.input)),
        );
        for (const line of lines.filter((one) => one.status !== 'done')) {
          expect(['failed', 'pending'], context).toContain(line.status);
          expect(line.reason ?? '', context).toMatch(/^[^\n]+$/);
        }
        expect(first.exitCode, context).toBe(done.size === INPUTS ? 0 : 1);
        if (process.env.CHAOS_SEEDS) {
          console.log(`seed ${seed}: ${lines.map((line) => line.status).join(' ')}`);
          for (const line of lines.filter((one) => one.reason))
            console.log(`  ${line.input}: ${line.reason}`);
        }
        await expectOutputs(out, done, proxy, context);
        const firstCount = proxy.requests.length;

        proxy.setRate(0);
        // Without faults, with the default timeout: a busy machine's slow answer is no fault.
        const again = await runCli(['redact', 'in', '-o', out, '--json'], options);
        const againContext = `${context}\n--- re-run ---\n${String(again.stdout)}\n${String(again.stderr)}`;
        expect(again.timedOut, againContext).toBe(false);
        expectCleanOutput('re-run', again, sandbox.token);
        expect(again.exitCode, againContext).toBe(0);
        const resent = proxy.requests
          .slice(firstCount)
          .filter((request) => request.uploadName !== undefined)
          .map((request) => stemOf(request.uploadName ?? ''));
        expect(
          resent.filter((stem) => done.has(stem)),
          againContext,
        ).toEqual([]);
        await expectOutputs(out, new Set(durations.keys()), proxy, againContext);
        await expectNoTokenInFiles(out, sandbox.token);
      } finally {
        await proxy.close();
      }
    },
    TEST_TIMEOUT_MS,
  );
});

/**
 * The files under `out` (but its journal folder) are exactly the done inputs' outputs, each a WAV
 * as long as its input that the service's answer brought whole.
 */
async function expectOutputs(out: string, done: Set<string>, proxy: FaultProxy, context: string) {
  const files = (await listFiles(out)).filter((name) => !name.startsWith('.vredact/'));
  expect(files, context).toEqual([...done].sort().map((stem) => `${stem}.wav`));
  const answered = new Set(proxy.delivered.map((answer) => answer.sha256));
  for (const name of files) {
    const wav = await readFile(join(out, name));
    expect(answered.has(sha256(wav)), `${name} is no answer the service sent whole\n${context}`).toBe(true);
    expect(wavSeconds(wav), `${name}'s duration\n${context}`).toBeCloseTo(
      bench.durations.get(stemOf(name)) ?? 0,
      2,
    );
  }
}
