/**
 * The built binary against a flaky network and a misbehaving service, by experiment: a fault proxy
 * (test/helpers/fault-proxy.ts) in front of `vredact sandbox` resets, stalls, cuts, throttles and
 * corrupts a random share of the requests, by a seed. Whatever the faults, every run ends; each
 * input is done with a whole WAV the service sent for it, or failed or pending with a one-line
 * reason; the exit code says which; nothing half-written stands under an output name; stderr has no
 * stack trace, no raw control character and never the token; a re-run without faults finishes the
 * rest and sends nothing already done. The same for `download` and `jobs list|content`.
 *
 * More seeds by hand: CHAOS_SEEDS=1-40 npx vitest run test/e2e/chaos-network.test.ts
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { FIXTURES, isolatedEnv, runCli, tempDir } from '../helpers/cli.js';
import { jsonLines, listFiles } from '../helpers/e2e.js';
import { type FaultProxy, startFaultProxy } from '../helpers/fault-proxy.js';
import { type SandboxProcess, startSandboxProcess } from '../helpers/sandbox.js';
import { createHash } from 'node:crypto';

const INPUTS = 20;
const RATE = 0.2;
/** Short enough that a stalled request costs little, long enough for a busy machine. */
const TIMEOUT_S = '2';
const STALL_MS = 5_000;
/** Only a guard: a run that hangs fails the test instead of holding the suite. */
const GUARD_MS = 50_000;
/** A test runs two or more guarded runs: its own limit is above theirs. */
const TEST_TIMEOUT_MS = 150_000;
/** Jobs whose content is listed and downloaded under faults. */
const JOBS_DOWNLOADED = 3;

/** `CHAOS_SEEDS=3` or `1-40`: the seeds to run; the suite's own are a few fixed ones. */
function seeds(): number[] {
  const asked = process.env.CHAOS_SEEDS;
  if (!asked) return [11, 23];
  const [from, to] = asked.split('-').map(Number);
  const first = from ?? 1;
  return Array.from({ length: (to ?? first) - first + 1 }, (_, i) => first + i);
}

/** A WAV of the speech fixture's first `samples` samples (16 kHz mono 16-bit). */
async function speechSlice(samples: number): Promise<Buffer> {
  const fixture = await readFile(join(FIXTURES, 'speech-16bit.wav'));
  const dataAt = fixture.indexOf('data') + 8;
  const data = fixture.subarray(dataAt, dataAt + samples * 2);
  const head = Buffer.alloc(44);
  head.write('RIFF', 0, 'latin1');
  head.writeUInt32LE(36 + data.length, 4);
  head.write('WAVEfmt ', 8, 'latin1');
  head.writeUInt32LE(16, 16);
  head.writeUInt16LE(1, 20);
  head.writeUInt16LE(1, 22);
  head.writeUInt32LE(16000, 24);
  head.writeUInt32LE(32000, 28);
  head.writeUInt16LE(2, 32);
  head.writeUInt16LE(16, 34);
  head.write('data', 36, 'latin1');
  head.writeUInt32LE(data.length, 40);
  return Buffer.concat([head, data]);
}

/** Seconds of audio of a WAV, from its `fmt ` and `data` chunks. */
function wavSeconds(wav: Buffer): number {
  const fmt = wav.indexOf('fmt ');
  const byteRate = wav.readUInt32LE(fmt + 16);
  const data = wav.indexOf('data', fmt);
  return wav.readUInt32LE(data + 4) / byteRate;
}

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

/** Every control character but a line break and a tab: an escape sequence reaching the terminal. */
const RAW_CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f\u0080-\u009f]/;

/** What every run prints, whatever the faults. */
function expectCleanOutput(what: string, output: { stdout: unknown; stderr: unknown }, token: string) {
  const stdout = String(output.stdout);
  const stderr = String(output.stderr);
  expect(stderr, `${what}: a stack trace`).not.toMatch(/^\s+at .+:\d+:\d+\)?$/m);
  expect(stderr, `${what}: a raw control character`).not.toMatch(RAW_CONTROL);
  expect(stdout, `${what}: a raw control character`).not.toMatch(RAW_CONTROL);
  expect(stdout + stderr, `${what}: the token`).not.toContain(token);
  expect(stdout + stderr, `${what}: the token's secret part`).not.toContain(token.slice(8));
}

/** No file under `root` holds the token. */
async function expectNoTokenInFiles(root: string, token: string) {
  for (const name of await listFiles(root)) {
    const text = (await readFile(join(root, name))).toString('latin1');
    expect(text.includes(token), `the token is in ${name}`).toBe(false);
  }
}

let sandbox: SandboxProcess;
let work: Awaited<ReturnType<typeof tempDir>>;
/** Stem → seconds of its input. */
const durations = new Map<string, number>();

beforeAll(async () => {
  work = await tempDir('vredact-chaos-');
  // Inputs over 1.2 s become asynchronous jobs, collected through the content listing and a download.
  sandbox = await startSandboxProcess(['--sync-limit', '1.2', '--speed', '200']);
  const inputs = join(work.path, 'in');
  await mkdir(inputs);
  for (let i = 0; i < INPUTS; i++) {
    const stem = `clip-${String(i).padStart(2, '0')}`;
    const samples = 6400 + i * 1200;
    durations.set(stem, samples / 16000);
    await writeFile(join(inputs, `${stem}.wav`), await speechSlice(samples));
  }
});

afterAll(async () => {
  await sandbox?.stop();
  await work?.cleanup();
});

interface FileLine {
  input: string;
  status: string;
  output?: string;
  reason?: string;
}

const stemOf = (path: string) => (path.split('/').pop() ?? '').split('.')[0] ?? '';

function runOptions(proxy: FaultProxy, configDir: string) {
  return {
    env: isolatedEnv(configDir, { VREDACT_BASE_URL: proxy.baseUrl, VREDACT_TOKEN: sandbox.token }),
    cwd: work.path,
    timeout: GUARD_MS,
  };
}

const COMMON = ['--timeout', TIMEOUT_S, '--max-retries', '3', '--max-throttle-wait', '20s'];

describe.each(seeds())('seed %i', (seed) => {
  test(
    'redact: every input ends done and whole, or failed or pending with a reason; a clean re-run finishes the rest',
    async () => {
      const proxy = await startFaultProxy(sandbox.baseUrl, { seed, rate: RATE, stallMs: STALL_MS });
      const out = join(work.path, `out-${seed}`);
      const config = join(work.path, `config-${seed}`);
      const faults = () =>
        proxy.requests.filter((r) => r.fault).map((r) => `${r.method} ${r.url}: ${r.fault}`);
      try {
        const args = ['redact', 'in', '-o', out, '--json', '-c', '4', ...COMMON];
        args.push('--max-outage-wait', '10s', '--wait-timeout', '40s');
        const first = await runCli(args, runOptions(proxy, config));
        const context = `seed ${seed}; faults:\n${faults().join('\n')}\n--- stderr ---\n${String(first.stderr)}`;
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
          const counts = lines.map((line) => line.status).join(' ');
          console.log(
            `seed ${seed}: ${faults().length} faults in ${proxy.requests.length} requests; ${counts}`,
          );
          for (const line of lines.filter((one) => one.reason))
            console.log(`  ${line.input}: ${line.reason}`);
        }
        await expectOutputs(out, done, proxy, context);
        const firstCount = proxy.requests.length;

        proxy.setRate(0);
        // Without faults, with the default timeout: a busy machine's slow answer is no fault.
        const again = await runCli(['redact', 'in', '-o', out, '--json'], runOptions(proxy, config));
        const againContext = `${context}\n--- re-run stderr ---\n${String(again.stderr)}`;
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

interface CleanState {
  jobs: string[];
  /** Job id → its file names, sorted. */
  contents: Map<string, string[]>;
  /** Job id → file name → SHA-256 of the file. */
  files: Map<string, Map<string, string>>;
}

/** What `jobs list|content` and `download` must give whole, read without faults before the faults. */
async function cleanState(): Promise<CleanState> {
  const env = isolatedEnv(join(work.path, 'config-clean'), {
    VREDACT_BASE_URL: sandbox.baseUrl,
    VREDACT_TOKEN: sandbox.token,
  });
  const redacted = await runCli(['redact', 'in', '-o', 'out-clean'], { env, cwd: work.path });
  expect(redacted.exitCode, String(redacted.stderr)).toBe(0);
  const list = await runCli(['jobs', 'list', '--json'], { env });
  const jobs = (JSON.parse(String(list.stdout)) as Array<{ job_id: string }>).map((job) => job.job_id).sort();
  const contents = new Map<string, string[]>();
  const files = new Map<string, Map<string, string>>();
  for (const id of jobs.slice(0, JOBS_DOWNLOADED)) {
    const content = await runCli(['jobs', 'content', id, '--json'], { env });
    const names = (JSON.parse(String(content.stdout)) as Array<{ file_name: string }>).map(
      (item) => item.file_name,
    );
    contents.set(id, names.sort());
    const folder = join(work.path, `clean-${id}`);
    const download = await runCli(['download', id, '-o', folder], { env });
    expect(download.exitCode, String(download.stderr)).toBe(0);
    const hashes = new Map<string, string>();
    for (const name of await listFiles(folder)) hashes.set(name, sha256(await readFile(join(folder, name))));
    files.set(id, hashes);
  }
  return { jobs, contents, files };
}

/** Exit 0 with the whole answer, or exit 1 with nothing on stdout and the error in one line. */
function expectWholeOrOneLine(what: string, result: Awaited<ReturnType<typeof runCli>>, whole: () => void) {
  expect(result.timedOut, what).toBe(false);
  expectCleanOutput(what, result, sandbox.token);
  if (result.exitCode === 0) return whole();
  expect(result.exitCode, what).toBe(1);
  expect(String(result.stdout), what).toBe('');
  const errors = String(result.stderr)
    .split('\n')
    .filter((line) => line.startsWith('error:'));
  expect(errors, what).toHaveLength(1);
}

/** Read once, by the first seed's test of `download` and `jobs`. */
let clean: CleanState | undefined;

describe.each(seeds())('seed %i', (seed) => {
  beforeAll(async () => {
    clean ??= await cleanState();
  });

  test(
    'jobs list, jobs content and download: whole, or one line of error and no partial file; a clean re-run downloads only the rest',
    async () => {
      const { jobs, contents, files } = clean ?? (await cleanState());
      const proxy = await startFaultProxy(sandbox.baseUrl, { seed, rate: RATE * 1.5, stallMs: STALL_MS });
      const options = runOptions(proxy, join(work.path, `config-dl-${seed}`));
      const context = () =>
        `seed ${seed}; faults:\n${proxy.requests
          .filter((r) => r.fault)
          .map((r) => `${r.method} ${r.url}: ${r.fault}`)
          .join('\n')}`;
      try {
        for (let round = 0; round < 3; round++) {
          const list = await runCli(['jobs', 'list', '--json', ...COMMON], options);
          expectWholeOrOneLine(`jobs list\n${context()}\n${String(list.stderr)}`, list, () => {
            const ids = (JSON.parse(String(list.stdout)) as Array<{ job_id: string }>).map(
              (job) => job.job_id,
            );
            expect(ids.sort()).toEqual(jobs);
          });
        }
        const present = new Map<string, string[]>();
        for (const [id, names] of contents) {
          const content = await runCli(['jobs', 'content', id, '--json', ...COMMON], options);
          expectWholeOrOneLine(`jobs content\n${context()}\n${String(content.stderr)}`, content, () => {
            const got = (JSON.parse(String(content.stdout)) as Array<{ file_name: string }>).map(
              (i) => i.file_name,
            );
            expect(got.sort()).toEqual(names);
          });
          const folder = join(work.path, `dl-${seed}-${id}`);
          const download = await runCli(['download', id, '-o', folder, ...COMMON], options);
          const what = `download\n${context()}\n${String(download.stderr)}`;
          expect(download.timedOut, what).toBe(false);
          expectCleanOutput('download', download, sandbox.token);
          expect([0, 1], what).toContain(download.exitCode);
          const written = await listFiles(folder);
          await expectSameFiles(folder, written, files.get(id), what);
          if (download.exitCode === 0) expect(written, what).toEqual(names);
          if (process.env.CHAOS_SEEDS)
            console.log(
              `seed ${seed}: download ${id}: exit ${download.exitCode}, ${written.length} of ${names.length}`,
            );
          present.set(id, written);
        }

        proxy.setRate(0);
        const before = proxy.requests.length;
        for (const [id, names] of contents) {
          const folder = join(work.path, `dl-${seed}-${id}`);
          const again = await runCli(['download', id, '-o', folder], options);
          expect(again.exitCode, String(again.stderr)).toBe(0);
          expect(await listFiles(folder)).toEqual(names);
          await expectSameFiles(folder, names, files.get(id), context());
          const fetchedAgain = proxy.requests
            .slice(before)
            .filter((r) => r.url.startsWith('/files/'))
            .map((r) => decodeURIComponent((r.url.split('?')[0] ?? '').split('/').pop() ?? ''))
            .filter((name) => present.get(id)?.includes(name));
          expect(fetchedAgain, context()).toEqual([]);
          await expectNoTokenInFiles(folder, sandbox.token);
        }
      } finally {
        await proxy.close();
      }
    },
    TEST_TIMEOUT_MS,
  );
});

/** Every file listed is the one a clean download wrote: nothing partial under a file's name. */
async function expectSameFiles(
  folder: string,
  names: string[],
  hashes: Map<string, string> | undefined,
  context: string,
) {
  for (const name of names) {
    expect(hashes?.get(name), `${name}: not the file a clean download wrote\n${context}`).toBe(
      sha256(await readFile(join(folder, name))),
    );
  }
}

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
      durations.get(stemOf(name)) ?? 0,
      2,
    );
  }
}
