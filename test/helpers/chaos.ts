/**
 * Shared by the chaos tests (test/e2e/chaos-*.test.ts): the seeds, the settings that keep a faulty
 * run short, a sandbox with inputs of many lengths, and the checks every run must pass whatever the
 * faults. More seeds by hand: `CHAOS_SEEDS=1-40 npx vitest run test/e2e/chaos-` (and
 * `CHAOS_CONCURRENCY=16` for one `-c`).
 */
import { createHash } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { expect } from 'vitest';
import { isolatedEnv, tempDir } from './cli.js';
import { listFiles } from './e2e.js';
import type { FaultProxy } from './fault-proxy.js';
import { type SandboxProcess, startSandboxProcess } from './sandbox.js';
import { speechSlice } from './speech-files.js';

/** Share of requests that meet a fault. */
export const RATE = 0.2;
/** How long a stalled request hears nothing: past the client's --timeout. */
export const STALL_MS = 5_000;
/** Only a guard: a run that hangs fails the test instead of holding the suite. */
const GUARD_MS = 50_000;
/** A test runs two or more guarded runs: its own limit is above theirs. */
export const TEST_TIMEOUT_MS = 150_000;
/** A short --timeout (a stalled request costs little) and few retries, for the runs under faults. */
export const FAULTY_RUN_FLAGS = ['--timeout', '2', '--max-retries', '3', '--max-throttle-wait', '20s'];

/** `CHAOS_SEEDS=3` or `1-40`: the seeds to run; the suite's own are two fixed ones. */
export function seeds(): number[] {
  const asked = process.env.CHAOS_SEEDS;
  if (!asked) return [11, 23];
  const [from, to] = asked.split('-').map(Number);
  const first = from ?? 1;
  return Array.from({ length: (to ?? first) - first + 1 }, (_, i) => first + i);
}

/**
 * `CHAOS_CONCURRENCY=16`: the `-c` of every run, for campaigns by hand; unset, each test keeps its
 * own (`chosen`, a round's choice by its seed, or none: the default).
 */
export function chaosConcurrency(chosen: number): number;
export function chaosConcurrency(chosen?: number): number | undefined;
export function chaosConcurrency(chosen?: number): number | undefined {
  const asked = process.env.CHAOS_CONCURRENCY;
  return asked ? Number(asked) : chosen;
}

/** Seconds of audio of a WAV, from its `fmt ` and `data` chunks. */
export function wavSeconds(wav: Buffer): number {
  const fmt = wav.indexOf('fmt ');
  const byteRate = wav.readUInt32LE(fmt + 16);
  const data = wav.indexOf('data', fmt);
  return wav.readUInt32LE(data + 4) / byteRate;
}

export const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

/** Every control character but a line break and a tab: an escape sequence reaching the terminal. */
const RAW_CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f\u0080-\u009f]/;

/** What every run prints, whatever the faults. */
export function expectCleanOutput(what: string, output: { stdout: unknown; stderr: unknown }, token: string) {
  const stdout = String(output.stdout);
  const stderr = String(output.stderr);
  expect(stderr, `${what}: a stack trace`).not.toMatch(/^\s+at .+:\d+:\d+\)?$/m);
  expect(stderr, `${what}: a raw control character`).not.toMatch(RAW_CONTROL);
  expect(stdout, `${what}: a raw control character`).not.toMatch(RAW_CONTROL);
  expect(stdout + stderr, `${what}: the token`).not.toContain(token);
  expect(stdout + stderr, `${what}: the token's secret part`).not.toContain(token.slice(8));
}

/** No file under `root` holds the token. */
export async function expectNoTokenInFiles(root: string, token: string) {
  for (const name of await listFiles(root)) {
    const text = (await readFile(join(root, name))).toString('latin1');
    expect(text.includes(token), `the token is in ${name}`).toBe(false);
  }
}

export interface ChaosBench {
  sandbox: SandboxProcess;
  /** The working folder: `in/` holds the inputs. */
  dir: string;
  /** Input stem (`clip-07`) → its seconds. */
  durations: Map<string, number>;
  /** Options of a CLI run through `proxy`, with its config in `configDir`. */
  runOptions(proxy: FaultProxy, configDir: string): { env: NodeJS.ProcessEnv; cwd: string; timeout: number };
  cleanup(): Promise<void>;
}

/**
 * A sandbox (inputs over 1.2 s become asynchronous jobs, collected through the content listing and a
 * download) and `count` inputs of distinct lengths from 0.4 s up.
 */
export async function startChaosBench(count: number): Promise<ChaosBench> {
  const work = await tempDir('vredact-chaos-');
  const sandbox = await startSandboxProcess(['--sync-limit', '1.2', '--speed', '200']).catch(
    async (error: unknown) => {
      await work.cleanup();
      throw error;
    },
  );
  const durations = new Map<string, number>();
  await mkdir(join(work.path, 'in'));
  for (let i = 0; i < count; i++) {
    const stem = `clip-${String(i).padStart(2, '0')}`;
    const samples = 6400 + i * 1200;
    durations.set(stem, samples / 16000);
    await writeFile(join(work.path, 'in', `${stem}.wav`), await speechSlice(samples));
  }
  return {
    sandbox,
    dir: work.path,
    durations,
    runOptions: (proxy, configDir) => ({
      env: isolatedEnv(configDir, { VREDACT_BASE_URL: proxy.baseUrl, VREDACT_TOKEN: sandbox.token }),
      cwd: work.path,
      timeout: GUARD_MS,
    }),
    cleanup: async () => {
      await sandbox.stop();
      await work.cleanup();
    },
  };
}

/** The faults a proxy injected so far, one per line: printed with every failure, with the seed. */
export function faultLog(seed: number, proxy: FaultProxy): string {
  const lines = proxy.requests.filter((r) => r.fault).map((r) => `${r.method} ${r.url}: ${r.fault}`);
  return `seed ${seed}; faults:\n${lines.join('\n')}`;
}
