/**
 * `redact` and `download` say the same of an interrupt, in one wording from one home
 * (src/interrupt.ts), through the built binary with stdout and stderr as pipes: what the first
 * (Ctrl-C, SIGTERM) and the second do to what is in flight, counted, what the next one would do,
 * and after the summary, how to finish. Before, SIGTERM was reported as "Ctrl-C again to abort them",
 * the second said "aborting the requests in flight" whatever they were, and only download said what
 * to do next; and the lines named no count, so a run with nothing in flight (its uploads not begun,
 * or only jobs waited for) said it was finishing the uploads in flight.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { isolatedEnv, runCli, tempDirPerTest } from '../helpers/cli.js';
import { type E2E, jsonLines, pauseBeforeAnotherSignal, setup, until } from '../helpers/e2e.js';
import { type HoldingFileHost, startHoldingFileHost } from '../helpers/holding-file-host.js';
import { type HoldingService, holdingService, REDACTION, uploads } from '../helpers/holding-service.js';
import { sendJson, startScriptedServer, type ScriptedServer } from '../helpers/scripted-server.js';
import { speechInputs } from '../helpers/speech-files.js';

const dir = tempDirPerTest('vredact-e2e-interrupt-words-');

let e2e: E2E | undefined;
let host: HoldingFileHost | undefined;
let service: HoldingService | undefined;
let silent: ScriptedServer | undefined;
afterEach(async () => {
  await host?.close();
  host = undefined;
  service?.release();
  await service?.server.close();
  service = undefined;
  await silent?.close();
  silent = undefined;
  await e2e?.cleanup();
  e2e = undefined;
});

type Signals = ReadonlyArray<'SIGINT' | 'SIGTERM'>;
/** A run's exit code, its stderr, and its interrupt lines. */
type Said = { code: number | undefined; stderr: string; lines: string[] };

/** The interrupt's lines of a run's stderr, with what is in flight and the re-run's words made alike. */
function interruptLines(stderr: string, noun: string, rerun: string): string[] {
  return stderr
    .split('\n')
    .filter((line) => /^(warning|error): (interrupted|aborting)/.test(line))
    .map((line) => line.replaceAll(noun, '<things>').replace(rerun, '<rerun>'));
}

/**
 * Whether the `index`th signal's line is on stderr yet. By its place, not by its signal: a second
 * SIGINT's line is not the first's, and waiting for "interrupted" again released the held uploads
 * before a loaded machine's vredact had read the second signal (it then found none in flight).
 */
function saidAfter(stderr: string, index: number): boolean {
  return index === 0 ? stderr.includes('interrupted') : /aborting|to abort/.test(stderr);
}

/** `redact` of 4 files at -c 2, sent `signals` once two uploads are under way (held until released). */
async function redactLines(signals: Signals): Promise<Said> {
  service = await holdingService();
  const env = isolatedEnv(join(dir.path, 'config'), {
    VREDACT_BASE_URL: service.server.baseUrl,
    VREDACT_TOKEN: 'vr_test_words',
  });
  await speechInputs(dir.path, 4);
  const child = runCli(['redact', 'in', '-c', '2', '-o', 'redacted'], { env, cwd: dir.path });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  await until(async () => uploads(service!.server) === 2, 30_000);
  for (const [index, signal] of signals.entries()) {
    if (index > 0) await pauseBeforeAnotherSignal();
    child.kill(signal);
    await until(async () => saidAfter(stderr, index), 30_000);
  }
  service.release();
  const result = await child;
  return {
    code: result.exitCode,
    stderr,
    lines: interruptLines(
      stderr,
      'uploads',
      'send the files not yet done and collect the pending jobs (what is done is skipped)',
    ),
  };
}

/** `download` of a job's 6 files at -c 2, sent `signals` once two are under way (held until released). */
async function downloadLines(signals: Signals): Promise<Said> {
  host = await startHoldingFileHost(6);
  const env = isolatedEnv(join(dir.path, 'config'), {
    VREDACT_BASE_URL: host.baseUrl,
    VREDACT_TOKEN: 'vr_test_words',
  });
  const child = runCli(['download', 'job1', '-c', '2', '-o', join(dir.path, 'out')], { env });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  await until(async () => host!.gets() === 2, 30_000);
  for (const [index, signal] of signals.entries()) {
    if (index > 0) await pauseBeforeAnotherSignal();
    child.kill(signal);
    await until(async () => saidAfter(stderr, index), 30_000);
  }
  host.release();
  const result = await child;
  return {
    code: result.exitCode,
    stderr,
    lines: interruptLines(stderr, 'downloads', 'fetch the files not yet saved (what is saved is skipped)'),
  };
}

describe('the interrupt lines of redact and download', () => {
  it.each<[string, Signals, string[]]>([
    [
      'a Ctrl-C',
      ['SIGINT'],
      [
        'warning: interrupted: finishing the 2 <things> in flight, then exiting; press Ctrl-C again to stop them now',
        'error: interrupted: run the same command again to <rerun>',
      ],
    ],
    [
      'two Ctrl-C',
      ['SIGINT', 'SIGINT'],
      [
        'warning: interrupted: finishing the 2 <things> in flight, then exiting; press Ctrl-C again to stop them now',
        'warning: aborting the 2 <things> in flight; a third interrupt exits at once',
        'error: interrupted: run the same command again to <rerun>',
      ],
    ],
    [
      'a SIGTERM',
      ['SIGTERM'],
      [
        'warning: interrupted (SIGTERM): finishing the 2 <things> in flight, then exiting; SIGTERM or Ctrl-C again stops them now',
        'error: interrupted: run the same command again to <rerun>',
      ],
    ],
  ])(
    'after %s are one wording, and the run exits 130',
    async (_name, signals, expected) => {
      const redact = await redactLines(signals);
      expect(redact.lines, redact.stderr).toEqual(expected);
      expect(redact.code, redact.stderr).toBe(130);
      const download = await downloadLines(signals);
      expect(download.lines, download.stderr).toEqual(expected);
      expect(download.code, download.stderr).toBe(130);
    },
    90_000,
  );
});

describe('an interrupt with no transfer in flight', () => {
  it('redact waiting only for its jobs says it stops the waits, and the jobs are left pending', async () => {
    // Every file is a job (--sync-limit 0) that takes minutes (--speed): its upload is soon answered.
    e2e = await setup(['--sync-limit', '0', '--speed', '0.01']);
    for (let i = 0; i < 3; i++) await e2e.fixture('speech-16bit.wav', `in/c${i}.wav`);
    const child = e2e.redact(['in', '-o', 'out', '--json']);
    let stderr = '';
    child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    const sandbox = e2e.sandbox;
    // Each job is waited for once its status was asked.
    const polled = async () => {
      const asked = (await sandbox.requests()).filter(
        (r) => r.method === 'GET' && /^\/api\/jobs\/./.test(r.path),
      );
      return new Set(asked.map((r) => r.path)).size;
    };
    await until(async () => (await polled()) === 3, 30_000);
    child.kill('SIGINT');
    const result = await child;

    expect(result.exitCode, stderr).toBe(130);
    expect(stderr).toMatch(
      /^warning: interrupted: stopping the waits for 3 jobs \(they stay pending for the next run\); exiting$/m,
    );
    expect(stderr).not.toMatch(/finishing/);
    const outcomes = jsonLines(result.stdout).filter((line) => line['input'] !== undefined);
    expect(outcomes.map((line) => line['status'])).toEqual(['pending', 'pending', 'pending']);
    expect((await sandbox.stats()).uploads).toBe(3);
    const journal = await readFile(join(e2e.dir, 'out', '.vredact', 'journal.jsonl'), 'utf8');
    expect(journal.match(/"event":"submitted"/g)).toHaveLength(3);
  }, 60_000);

  it('redact: a poll under way at the interrupt that then finds the result starts no download; the job stays pending', async () => {
    // The job's status is held until the interrupt has come, then answered with its result listed.
    let answerPoll = () => {};
    const pollAnswered = new Promise<void>((resolve) => (answerPoll = resolve));
    silent = await startScriptedServer(async (req, res) => {
      const path = req.url ?? '';
      if (path === REDACTION) return sendJson(res, 202, { job_id: 'j1' });
      if (path === '/api/jobs/j1/content') {
        await pollAnswered;
        return sendJson(res, 200, { jobContent: [{ id: 1, job_id: 'j1', file_name: 'result.wav' }] });
      }
      return sendJson(res, 200, { signedUrl: `${silent!.baseUrl}/files/result.wav` });
    });
    const env = isolatedEnv(join(dir.path, 'config'), {
      VREDACT_BASE_URL: silent.baseUrl,
      VREDACT_TOKEN: 'vr_test_words',
    });
    await speechInputs(dir.path, 1);
    const child = runCli(['redact', 'in', '-o', 'redacted', '--json'], { env, cwd: dir.path });
    let stderr = '';
    child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    await until(async () => silent!.received.some((r) => r.url === '/api/jobs/j1/content'), 30_000);
    child.kill('SIGINT');
    await until(async () => stderr.includes('stopping the wait for 1 job'), 30_000);
    answerPoll();
    const result = await child;

    expect(result.exitCode, stderr).toBe(130);
    const outcomes = jsonLines(result.stdout).filter((line) => line['input'] !== undefined);
    expect(outcomes.map((line) => [line['status'], line['jobId']])).toEqual([['pending', 'j1']]);
    // Nothing was started after the interrupt: no link asked for, no file fetched.
    expect(
      silent.received.map((r) => r.url).filter((url) => !url.startsWith('/api/jobs/j1/content')),
    ).toEqual([REDACTION]);
    const journal = await readFile(join(dir.path, 'redacted', '.vredact', 'journal.jsonl'), 'utf8');
    expect(journal).toMatch(/"event":"submitted"/);
    expect(journal).not.toMatch(/"event":"done"/);
  }, 60_000);

  it("download still reading the job's listing says no download is in flight", async () => {
    // A service that never answers: the listing is under way, no file is.
    silent = await startScriptedServer(() => new Promise<void>(() => {}));
    const env = isolatedEnv(join(dir.path, 'config'), {
      VREDACT_BASE_URL: silent.baseUrl,
      VREDACT_TOKEN: 'vr_test_words',
    });
    const child = runCli(['download', 'job1', '-o', join(dir.path, 'out')], { env });
    await until(async () => silent!.received.length === 1, 30_000);
    child.kill('SIGINT');
    const result = await child;

    expect(result.exitCode, String(result.stderr)).toBe(130);
    const lines = String(result.stderr)
      .split('\n')
      .filter((line) => /^(warning|error): interrupted/.test(line));
    expect(lines).toEqual([
      'warning: interrupted: no download in flight; exiting',
      'error: interrupted: run the same command again to fetch the files not yet saved (what is saved is skipped)',
    ]);
  }, 60_000);
});
