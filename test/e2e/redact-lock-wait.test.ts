/**
 * `redact --lock-wait`: a run that finds its output folder locked waits for the lock instead of
 * exiting 2 at once, through the built binary: it goes on once the other run ends or its lease lapses
 * (a shard behind a run over all the inputs too), exits 2 saying it waited when the lock stays held,
 * and exits 130 at a first Ctrl-C during the wait. Before, every such run exited 2 at once, and a
 * person (or a Kubernetes Job's retries) had to try again until the other run was over.
 * Build first: `npm run build`.
 */
import { copyFile, mkdir, readFile, rm, utimes, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import type { ResultPromise } from 'execa';
import { afterEach, describe, expect, it } from 'vitest';
import { isolatedEnv, runCli, tempDirPerTest } from '../helpers/cli.js';
import { jsonLines, until } from '../helpers/e2e.js';
import { type HoldingService, holdingService, uploads } from '../helpers/holding-service.js';
import { ANOTHER_PID_NAMESPACE, OUR_PROCESS_SPACE } from '../helpers/process-space.js';
import { speechInputs } from '../helpers/speech-files.js';

const TOKEN = 'vr_lock_wait_0123456789abcdef';
const dir = tempDirPerTest('vredact-lock-wait-');

let service: HoldingService | undefined;
afterEach(async () => {
  service?.release();
  await service?.server.close();
  service = undefined;
});

/** A run of `redact` in the test's folder against the holding service, its stderr collected as it comes. */
function redact(args: string[]): { run: ResultPromise; stderr: () => string; exited: () => boolean } {
  const run = runCli(['redact', ...args], {
    cwd: dir.path,
    env: isolatedEnv(join(dir.path, '.config'), {
      VREDACT_BASE_URL: service!.server.baseUrl,
      VREDACT_TOKEN: TOKEN,
    }),
  });
  let stderr = '';
  let exited = false;
  run.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  void run.then(() => (exited = true));
  return { run, stderr: () => stderr, exited: () => exited };
}

/** How many lines of a run's stderr say it waits for the lock. */
function waitingLines(stderr: unknown): number {
  return String(stderr)
    .split('\n')
    .filter((line) => line.startsWith('waiting up to ')).length;
}

/** Waits until the run says it waits for the lock, or has exited (as a run without the option does). */
async function untilWaiting(run: ReturnType<typeof redact>): Promise<void> {
  await until(async () => run.exited() || waitingLines(run.stderr()) > 0, 30_000);
}

/**
 * A lock of a run in another container of this host name, judged by its lease: `refreshMs` × 20
 * unrefreshed and it is stale.
 */
async function anotherContainersLock(out: string, name: string, refreshMs: number): Promise<string> {
  const owner = {
    pid: 2 ** 30,
    hostname: hostname(),
    ...OUR_PROCESS_SPACE,
    pidNamespace: ANOTHER_PID_NAMESPACE,
    startedAt: new Date().toISOString(),
    id: '0123456789abcdef',
    refreshMs,
  };
  const text = `${JSON.stringify(owner)}\n`;
  await mkdir(join(out, '.vredact'), { recursive: true });
  await writeFile(join(out, '.vredact', name), text, { mode: 0o600 });
  return text;
}

/** The inputs an upload name stands for (`call-0.<8 hex>.wav` → `call-0`), sorted. */
function stems(names: readonly string[]): string[] {
  return names.map((name) => name.replace(/\.[0-9a-f]{8}\.wav$/, '')).sort();
}

describe('redact --lock-wait', () => {
  it('waits for a live run to end, then goes on: both exit 0, every file sent once', async () => {
    service = await holdingService();
    await speechInputs(dir.path, 4);
    await mkdir(join(dir.path, 'extra'));
    for (const name of ['extra-0.wav', 'extra-1.wav'])
      await copyFile(join(dir.path, 'in', 'call-0.wav'), join(dir.path, 'extra', name));

    const first = redact(['in', '-o', 'out', '-c', '1', '--json']);
    await until(async () => uploads(service!.server) === 1, 30_000);
    const second = redact(['in', 'extra', '-o', 'out', '-c', '1', '--json', '--lock-wait', '1m']);
    await untilWaiting(second);
    service.release();
    const [a, b] = await Promise.all([first.run, second.run]);

    expect(a.exitCode, String(a.stderr)).toBe(0);
    expect(b.exitCode, String(b.stderr)).toBe(0);
    expect(stems(service.uploadNames)).toEqual([
      'call-0',
      'call-1',
      'call-2',
      'call-3',
      'extra-0',
      'extra-1',
    ]);
    expect(waitingLines(b.stderr)).toBe(1);
    expect(String(b.stderr)).toMatch(
      /^waiting up to 1m for the lock of the output folder .*out, held by pid \d+ on .*, started .*$/m,
    );
    expect(jsonLines(b.stdout).at(-1)).toMatchObject({ summary: { done: 2, skipped: 4, failed: 0 } });
  }, 60_000);

  it('exits 2 saying it waited when the lock stays held, with nothing sent', async () => {
    service = await holdingService();
    await speechInputs(dir.path, 2);
    const out = join(dir.path, 'out');
    const theirs = await anotherContainersLock(out, 'lock', 30_000);

    const run = redact(['in', '-o', 'out', '--lock-wait', '2s']);
    const result = await run.run;

    expect(result.exitCode, String(result.stderr)).toBe(2);
    expect(waitingLines(result.stderr)).toBe(1);
    expect(String(result.stderr)).toMatch(
      /^error: another vredact run is using the output folder .*out \(pid 1073741824 on .*\) after waiting 2s$/m,
    );
    expect(uploads(service.server)).toBe(0);
    expect(await readFile(join(out, '.vredact', 'lock'), 'utf8')).toBe(theirs);
  }, 60_000);

  it('a shard waits behind a run over all the inputs until that lock lapses, and leaves it for its own share', async () => {
    service = await holdingService();
    service.release();
    await speechInputs(dir.path, 4);
    const out = join(dir.path, 'out');
    const lock = join(out, '.vredact', 'lock');
    // Refreshed every 100 ms, as the lock says: stale once 2 s go by without a refresh.
    const theirs = await anotherContainersLock(out, 'lock', 100);
    let refreshing = true;
    const refresher = (async () => {
      while (refreshing) {
        const now = new Date();
        await utimes(lock, now, now);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    })();

    const run = redact(['in', '-o', 'out', '--json', '--shard', '1/2', '--lock-wait', '1m']);
    try {
      await untilWaiting(run);
    } finally {
      // The other run stops refreshing its lock (it died): its lease lapses.
      refreshing = false;
      await refresher;
    }
    const result = await run.run;

    expect(result.exitCode, String(result.stderr)).toBe(0);
    expect(waitingLines(result.stderr)).toBe(1);
    expect(String(result.stderr)).toMatch(
      /^waiting up to 1m for the lock of the output folder .*out, held by a run over all its inputs \(pid 1073741824 on .*\)$/m,
    );
    const summary = jsonLines(result.stdout).at(-1)?.summary as { done: number; failed: number };
    expect(summary.failed).toBe(0);
    expect(summary.done).toBeGreaterThan(0);
    expect(new Set(stems(service.uploadNames)).size).toBe(summary.done);
    expect(uploads(service.server)).toBe(summary.done);
    expect(await readFile(lock, 'utf8')).toBe(theirs);
  }, 60_000);

  it('a first Ctrl-C during the wait exits 130 with nothing sent', async () => {
    service = await holdingService();
    await speechInputs(dir.path, 2);
    const out = join(dir.path, 'out');
    const theirs = await anotherContainersLock(out, 'lock', 30_000);

    const run = redact(['in', '-o', 'out', '--lock-wait', '1m']);
    await untilWaiting(run);
    run.run.kill('SIGINT');
    const result = await run.run;

    expect(result.exitCode, String(result.stderr)).toBe(130);
    expect(String(result.stderr)).toMatch(/^error: interrupted: run the same command again/m);
    expect(uploads(service.server)).toBe(0);
    expect(await readFile(join(out, '.vredact', 'lock'), 'utf8')).toBe(theirs);
  }, 60_000);

  it('--quiet --stats: a line every interval says it waits for the lock, and who holds it; then the counts', async () => {
    service = await holdingService();
    service.release();
    await speechInputs(dir.path, 2);
    const out = join(dir.path, 'out');
    // Held by a live process of this machine: this test's own, judged by its pid.
    const owner = {
      pid: process.pid,
      hostname: hostname(),
      ...OUR_PROCESS_SPACE,
      startedAt: new Date().toISOString(),
      id: 'fedcba9876543210',
      refreshMs: 30_000,
    };
    await mkdir(join(out, '.vredact'), { recursive: true });
    await writeFile(join(out, '.vredact', 'lock'), `${JSON.stringify(owner)}\n`, { mode: 0o600 });
    const waiting = new RegExp(
      `^waiting for the lock of the output folder .*out, held by pid ${process.pid} on .* · \\d+:\\d\\d elapsed$`,
      'm',
    );

    const run = redact(['in', '-o', 'out', '--quiet', '--stats', '1s', '--lock-wait', '1m']);
    await until(async () => run.exited() || waiting.test(run.stderr()), 30_000);
    expect(run.stderr()).toMatch(waiting);
    expect(uploads(service.server)).toBe(0);
    // The holder ends: the run takes the lock and goes on.
    await rm(join(out, '.vredact', 'lock'));
    const result = await run.run;

    expect(result.exitCode, String(result.stderr)).toBe(0);
    const lines = String(result.stderr).split('\n');
    // --quiet hides the one info line of the wait; the `--stats` lines say it instead.
    expect(waitingLines(result.stderr)).toBe(0);
    expect(lines.at(-1)).toBe('redacted 2, skipped 0 (already done), rejected 0, failed 0, pending 0');
    expect(uploads(service.server)).toBe(2);
  }, 60_000);
});
