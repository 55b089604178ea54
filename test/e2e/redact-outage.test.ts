/**
 * A service that goes away in the middle of a night's batch, end to end against the built binary:
 * an outage is ridden out (one upload at a time probes it, no file's retries used up, each file sent
 * once); one longer than --max-outage-wait stops the batch with the rest pending, and the re-run
 * sends only those; a service that never answered stops the batch after one file's retries.
 */
import { readdir, readFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { isolatedEnv, runCli, tempDirPerTest } from '../helpers/cli.js';
import { answerWithSpeech, speechInputs } from '../helpers/speech-files.js';
import { sendJson, startScriptedServer, type ScriptedServer } from '../helpers/scripted-server.js';

const TOKEN = 'vr_outage_0123456789abcdef';
const REDACTION = '/api/speech-to-speech-biometric-redaction';
const dir = tempDirPerTest('vredact-outage-');

/** The upload names the server received, one per redaction request. */
function uploads(...servers: ScriptedServer[]): number {
  return servers.flatMap((server) => server.received).filter((request) => request.url === REDACTION).length;
}

/** A service that answers `before` uploads, then stops taking connections (as it answers the last). */
async function serviceThatGoesAway(before: number): Promise<ScriptedServer> {
  let answered = 0;
  const server: ScriptedServer = await startScriptedServer(async (req, res) => {
    if (req.url !== REDACTION) return sendJson(res, 404, { error: 404, message: 'not found' });
    answered++;
    if (answered < before) return answerWithSpeech(res);
    // Closed to new connections before the answer leaves: the next upload is refused, never lost.
    server.stopListening();
    return answerWithSpeech(res, { connection: 'close' });
  });
  return server;
}

interface Summary {
  done: number;
  skipped: number;
  failed: number;
  pending: number;
  undecided?: number;
}

function summaryOf(stdout: string): Summary {
  const lines = stdout.trim().split('\n');
  return (JSON.parse(lines[lines.length - 1] as string) as { summary: Summary }).summary;
}

describe('an outage of the service during a batch', () => {
  test('is ridden out: with --max-retries 0, every file is done and sent once, and stderr says when it began and ended', async () => {
    const first = await serviceThatGoesAway(2);
    let second: ScriptedServer | undefined;
    try {
      const out = join(dir.path, 'out');
      const child = runCli(
        ['redact', await speechInputs(dir.path, 5), '-o', out, '-c', '1', '--max-retries', '0'],
        {
          env: isolatedEnv(dir.path, { VREDACT_BASE_URL: first.baseUrl, VREDACT_TOKEN: TOKEN }),
          buffer: { stdout: true, stderr: true },
        },
      );
      // The service comes back on the same port once the run has said it is waiting for it.
      let back: Promise<void> | undefined;
      child.stderr?.on('data', (chunk: Buffer) => {
        if (back || !chunk.toString('utf8').includes('the service cannot be reached')) return;
        back = startScriptedServer((req, res) => answerWithSpeech(res), first.port).then((server) => {
          second = server;
        });
      });
      const run = await child;
      await back;
      expect(run.exitCode, String(run.stderr)).toBe(0);
      expect((await readdir(out)).filter((name) => name.endsWith('.wav'))).toHaveLength(5);
      expect(uploads(first, ...(second ? [second] : []))).toBe(5);
      const stderr = String(run.stderr);
      expect(stderr).toContain(
        `cannot connect to 127.0.0.1:${first.port} (connection refused): the service cannot be reached; new requests wait for it`,
      );
      expect(stderr).toMatch(/the service answers again, after \d+s/);
    } finally {
      await first.close();
      await second?.close();
    }
  }, 60_000);

  test('one longer than --max-outage-wait stops the batch, the rest pending; the re-run sends only those', async () => {
    const first = await serviceThatGoesAway(1);
    const later = await startScriptedServer((req, res) =>
      req.url === REDACTION
        ? answerWithSpeech(res)
        : sendJson(res, 404, { error: 404, message: 'not found' }),
    );
    try {
      const out = join(dir.path, 'out');
      const folder = await speechInputs(dir.path, 5);
      const args = ['redact', folder, '-o', out, '-c', '1', '--json'];
      const run = await runCli([...args, '--max-outage-wait', '2s'], {
        env: isolatedEnv(dir.path, { VREDACT_BASE_URL: first.baseUrl, VREDACT_TOKEN: TOKEN }),
      });
      expect(run.exitCode, String(run.stderr)).toBe(1);
      expect(String(run.stderr)).toMatch(
        /error: the batch stopped: redacting call-\d\.wav: the service could not be reached for \d+s \(--max-outage-wait 2s\)/,
      );
      expect(String(run.stderr)).toContain('run the same command again when the service is back');
      const summary = summaryOf(String(run.stdout));
      expect(summary.done).toBe(1);
      expect(summary.failed + summary.pending).toBe(4);
      expect(summary.pending).toBeGreaterThanOrEqual(3);
      expect(uploads(first)).toBe(1);

      const again = await runCli(args, {
        env: isolatedEnv(dir.path, { VREDACT_BASE_URL: later.baseUrl, VREDACT_TOKEN: TOKEN }),
      });
      expect(again.exitCode, String(again.stderr)).toBe(0);
      expect(summaryOf(String(again.stdout))).toMatchObject({ done: 4, skipped: 1 });
      expect(uploads(later)).toBe(4);
      expect((await readdir(out)).filter((name) => name.endsWith('.wav'))).toHaveLength(5);
    } finally {
      await first.close();
      await later.close();
    }
  }, 60_000);

  test('one Ctrl-C while the batch waits for the service: exit 130 at once, the waiting upload withdrawn, and the re-run sends the rest without a look-up', async () => {
    const first = await serviceThatGoesAway(2);
    const later = await startScriptedServer((req, res) =>
      req.url === REDACTION ? answerWithSpeech(res) : sendJson(res, 200, []),
    );
    try {
      const out = join(dir.path, 'out');
      const args = ['redact', await speechInputs(dir.path, 5), '-o', out, '-c', '1', '--json'];
      const child = runCli(args, {
        env: isolatedEnv(dir.path, { VREDACT_BASE_URL: first.baseUrl, VREDACT_TOKEN: TOKEN }),
        buffer: { stdout: true, stderr: true },
      });
      child.stderr?.on('data', (chunk: Buffer) => {
        if (chunk.toString('utf8').includes('the service cannot be reached')) child.kill('SIGINT');
      });
      // Before, the first interrupt waited for the outage to end: up to --max-outage-wait (10m).
      const run = await child;
      expect(run.exitCode, String(run.stderr)).toBe(130);
      expect(summaryOf(String(run.stdout))).toMatchObject({ done: 2, failed: 0, pending: 3 });
      const journal = await readFile(join(out, '.vredact', 'journal.jsonl'), 'utf8');
      expect(journal).toContain('"event":"withdrawn"');

      const again = await runCli(args, {
        env: isolatedEnv(dir.path, { VREDACT_BASE_URL: later.baseUrl, VREDACT_TOKEN: TOKEN }),
      });
      expect(again.exitCode, String(again.stderr)).toBe(0);
      expect(summaryOf(String(again.stdout))).toMatchObject({ done: 3, skipped: 2 });
      expect(later.received.map((request) => `${request.method} ${request.url}`)).toEqual(
        Array.from({ length: 3 }, () => `POST ${REDACTION}`),
      );
    } finally {
      await first.close();
      await later.close();
    }
  }, 60_000);

  test('a service that never answered stops the batch after one file’s retries: not every file in turn', async () => {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as import('node:net').AddressInfo;
    await new Promise<void>((resolve) => server.close(() => resolve()));
    const out = join(dir.path, 'out');
    const run = await runCli(
      ['redact', await speechInputs(dir.path, 12), '-o', out, '-c', '2', '--max-retries', '1', '--json'],
      {
        env: isolatedEnv(dir.path, { VREDACT_BASE_URL: `http://127.0.0.1:${port}`, VREDACT_TOKEN: TOKEN }),
      },
    );
    expect(run.exitCode, String(run.stderr)).toBe(1);
    const summary = summaryOf(String(run.stdout));
    expect(summary.done).toBe(0);
    expect(summary.failed).toBeLessThanOrEqual(2);
    expect(summary.pending).toBe(12 - summary.failed);
    expect(String(run.stderr)).toContain(`error: the batch stopped: redacting call-`);
    expect(String(run.stderr)).toContain(`cannot connect to 127.0.0.1:${port} (connection refused)`);
    expect(String(run.stderr)).toContain('hint: is the service URL right?');
  }, 60_000);
  test('a run that only collects jobs from a service that never answers stops after one job’s retries', async () => {
    // The first run submits 12 jobs with --no-wait; then the service is gone for the next run.
    let submitted = 0;
    // The --no-wait run looks at its first job (still processing, no items) before it submits more.
    const service = await startScriptedServer((req, res) => {
      if (req.url === REDACTION) sendJson(res, 202, { job_id: `job-${submitted++}` });
      else if (req.method === 'GET' && /^\/api\/jobs\/job-\d+\/content$/.test(req.url ?? ''))
        sendJson(res, 200, { jobContent: [] });
      else sendJson(res, 404, { error: 404, message: 'not found' });
    });
    const out = join(dir.path, 'out');
    const inputs = await speechInputs(dir.path, 12);
    const env = isolatedEnv(dir.path, { VREDACT_BASE_URL: service.baseUrl, VREDACT_TOKEN: TOKEN });
    const first = await runCli(['redact', inputs, '-o', out, '--no-wait'], { env });
    expect(first.exitCode, String(first.stderr)).toBe(0);
    await service.close();

    const run = await runCli(['redact', inputs, '-o', out, '-c', '2', '--max-retries', '0', '--json'], {
      env,
    });
    expect(run.exitCode, String(run.stderr)).toBe(1);
    const summary = summaryOf(String(run.stdout));
    // The stop ends the deciding: the jobs not decided by then are counted undecided, not pending.
    expect(summary).toMatchObject({ done: 0, failed: 0 });
    expect(summary.pending).toBeGreaterThan(0);
    expect(summary.pending + (summary.undecided ?? 0)).toBe(12);
    expect(String(run.stderr)).toContain('error: the batch stopped: reading job job-');
    expect(String(run.stderr)).toContain(`cannot connect to 127.0.0.1:${service.port} (connection refused)`);
    // Each job is still in the journal for the run after the service is back.
    const journal = await readFile(join(out, '.vredact', 'journal.jsonl'), 'utf8');
    expect(journal.split('\n').filter((line) => line.includes('"event":"submitted"'))).toHaveLength(12);
  }, 60_000);
});
