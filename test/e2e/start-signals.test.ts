/**
 * A signal that comes while `vredact redact` starts, through the built binary: its modules take a
 * few tenths of a second to load, and before, a SIGTERM, a Ctrl-C or a hangup then killed it by the
 * signal's default action (exit 143, 130 or 129 as signal deaths; a hangup under nohup too). Now the
 * start-up follows the interrupt rule: exit 130 (a hangup with no terminal is ignored and the run
 * goes to the end), and nothing is left behind: no lock, no temporary file, no upload cut short.
 *
 * Node.js's own start, before any JavaScript runs, cannot catch a signal, nor can the few
 * milliseconds in which it reads the binary's first lines. Each run is told apart from them by a
 * file that a preloaded script (`--require`) writes when the binary starts holding the signals: the
 * signal is sent 25 to 250 ms after the file appears, while the modules load (they take 0.2 to
 * 0.3 s).
 */
import { existsSync } from 'node:fs';
import { readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { STARTED_PRELOAD } from '../helpers/started-preload.js';
import { type E2E, listFiles, setup, until } from '../helpers/e2e.js';
import { latestEvents } from '../helpers/journal.js';

const DELAYS_MS = [25, 40, 60, 100, 150, 250];

let e2e: E2E;
let preload: string;

beforeAll(async () => {
  // Each answer takes 0.6 s: a run that was not stopped at its start cannot be over before its signal.
  e2e = await setup(['--latency', '600']);
  for (const name of ['a', 'b', 'c']) await e2e.fixture('speech-16bit.wav', `in/${name}.wav`);
  preload = join(e2e.dir, 'started.cjs');
  await writeFile(preload, STARTED_PRELOAD);
}, 60_000);

afterAll(async () => {
  await e2e?.cleanup();
});

/** `vredact <args>`, sent `signal` `delayMs` after it started holding the signals. */
async function signalled(args: string[], name: string, signal: NodeJS.Signals, delayMs: number) {
  const started = join(e2e.dir, `${name}.started`);
  const child = runCli(args, {
    cwd: e2e.dir,
    env: { ...e2e.env, NODE_OPTIONS: `--require ${preload}`, STARTED_FILE: started },
  });
  await until(async () => existsSync(started) || child.exitCode !== null, 20_000);
  await new Promise((resolve) => setTimeout(resolve, delayMs));
  child.kill(signal);
  return child;
}

/** A redact run into `out`, sent `signal` `delayMs` after it started holding the signals. */
async function signalledRun(out: string, signal: NodeJS.Signals, delayMs: number) {
  const uploadsBefore = (await e2e.sandbox.stats()).uploads;
  const result = await signalled(['redact', 'in', '-o', out], out, signal, delayMs);
  return { result, uploads: (await e2e.sandbox.stats()).uploads - uploadsBefore };
}

/** What a stopped run may leave in its output folder: the journal and the outputs it recorded done. */
async function leftBehind(out: string): Promise<{ stray: string[]; done: number }> {
  const files = await listFiles(out);
  if (files.length === 0) return { stray: [], done: 0 };
  const events = await latestEvents(out);
  const done = Object.entries(events).filter(([, event]) => event === 'done');
  const expected = new Set(['.vredact/journal.jsonl', ...done.map(([name]) => name)]);
  return { stray: files.filter((file) => !expected.has(file)), done: done.length };
}

describe('a signal while redact starts', () => {
  it.each(['SIGTERM', 'SIGINT'] as const)(
    '%s: exit 130 at every moment, no lock, no temporary file, every upload made recorded done',
    async (signal) => {
      for (const delay of DELAYS_MS) {
        const out = `out-${signal}-${delay}`;
        const { result, uploads } = await signalledRun(out, signal, delay);
        const what = `${signal} after ${delay} ms: signal ${String(result.signal)}; stderr: ${String(result.stderr)}`;
        expect(result.exitCode, what).toBe(130);
        expect(String(result.stderr), what).toMatch(/^warning: interrupted/m);
        const { stray, done } = await leftBehind(join(e2e.dir, out));
        expect(stray, what).toEqual([]);
        expect(done, what).toBe(uploads);
      }
    },
    120_000,
  );

  it('SIGHUP with no terminal is ignored at every moment: the run goes to the end, exit 0', async () => {
    for (const delay of DELAYS_MS) {
      const out = `out-SIGHUP-${delay}`;
      const { result, uploads } = await signalledRun(out, 'SIGHUP', delay);
      const what = `SIGHUP after ${delay} ms: signal ${String(result.signal)}; stderr: ${String(result.stderr)}`;
      expect(result.exitCode, what).toBe(0);
      expect(String(result.stderr), what).toMatch(/^hangup ignored/m);
      expect(await leftBehind(join(e2e.dir, out)), what).toEqual({ stray: [], done: 3 });
      expect(uploads, what).toBe(3);
      expect(await readdir(join(e2e.dir, out, '.vredact'))).not.toContain('lock');
    }
  }, 120_000);

  it('a command that does not take the signals over (jobs list) is still ended by one at its start', async () => {
    for (const delay of DELAYS_MS) {
      const result = await signalled(['jobs', 'list'], `jobs-${delay}`, 'SIGTERM', delay);
      expect(result.signal, `after ${delay} ms: exit ${String(result.exitCode)}`).toBe('SIGTERM');
    }
  }, 60_000);
});
