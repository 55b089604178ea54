/**
 * `redact` and `download` say the same of an interrupt, in one wording from one home
 * (src/interrupt.ts), through the built binary with stdout and stderr as pipes: what the first
 * (Ctrl-C, SIGTERM) and the second do, what the next one would do, and after the summary, how to
 * finish. Before, SIGTERM was reported as "Ctrl-C again to abort them", the second said "aborting
 * the requests in flight" whatever they were, and only download said what to do next.
 */
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { isolatedEnv, runCli, tempDirPerTest } from '../helpers/cli.js';
import { type E2E, setup, until } from '../helpers/e2e.js';
import { type HoldingFileHost, startHoldingFileHost } from '../helpers/holding-file-host.js';

const REDACT = '/api/speech-to-speech-biometric-redaction';
const dir = tempDirPerTest('vredact-e2e-interrupt-words-');

let e2e: E2E | undefined;
let host: HoldingFileHost | undefined;
afterEach(async () => {
  await host?.close();
  host = undefined;
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

/** `redact` of 4 files, sent `signals` once an upload is under way (each answer takes 1.5 s). */
async function redactLines(signals: Signals): Promise<Said> {
  e2e = await setup(['--latency', '1500']);
  for (let i = 0; i < 4; i++) await e2e.fixture('speech-16bit.wav', `in/c${i}.wav`);
  const child = e2e.redact(['in', '-c', '2', '-o', 'out']);
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const sandbox = e2e.sandbox;
  await until(async () => (await sandbox.requests()).some((r) => r.path === REDACT), 30_000);
  for (const signal of signals) {
    child.kill(signal);
    await until(async () => stderr.includes(signal === signals[0] ? 'interrupted' : 'aborting'), 30_000);
  }
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
  for (const signal of signals) {
    child.kill(signal);
    await until(async () => stderr.includes(signal === signals[0] ? 'interrupted' : 'aborting'), 30_000);
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
        'warning: interrupted: finishing the <things> in flight, then exiting; press Ctrl-C again to stop them now',
        'error: interrupted: run the same command again to <rerun>',
      ],
    ],
    [
      'two Ctrl-C',
      ['SIGINT', 'SIGINT'],
      [
        'warning: interrupted: finishing the <things> in flight, then exiting; press Ctrl-C again to stop them now',
        'warning: aborting the <things> in flight; a third interrupt exits at once',
        'error: interrupted: run the same command again to <rerun>',
      ],
    ],
    [
      'a SIGTERM',
      ['SIGTERM'],
      [
        'warning: interrupted (SIGTERM): finishing the <things> in flight, then exiting; SIGTERM or Ctrl-C again stops them now',
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
