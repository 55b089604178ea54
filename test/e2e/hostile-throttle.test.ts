/**
 * Throttling and refused connections, end to end against the built binary: sustained 429s are
 * ridden out at about one request per Retry-After, a long Retry-After fails at once naming the wait,
 * the sandbox's --rate-limit is a batch's everyday weather, and a refused connection says where.
 */
import { existsSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { isolatedEnv, runCli, tempDirPerTest } from '../helpers/cli.js';
import { jsonLines } from '../helpers/e2e.js';
import { startSandboxProcess } from '../helpers/sandbox.js';
import { answerWithSpeech, speechInputs } from '../helpers/speech-files.js';
import { sendJson, startScriptedServer } from '../helpers/scripted-server.js';

const TOKEN = 'vr_throttle_0123456789abcdef';
const REDACTION = '/api/speech-to-speech-biometric-redaction';
const dir = tempDirPerTest('vredact-hostile-throttle-');

/** The line that tells a stretch of throttling, some ten seconds long (`tens`), and when it is given up. */
const stretchLine = (tens: number, limit: string) =>
  new RegExp(
    `^the service has been rate-limiting requests for ${tens}\\ds; still waiting, up to ${limit} \\(--max-throttle-wait\\)$`,
  );

describe('throttling', () => {
  test('429 with Retry-After: 1 for 30 s, then success: 3 of 3 files finish with default settings, about one request a second while throttled', async () => {
    const THROTTLED_MS = 30_000;
    let firstAt: number | undefined;
    const throttledTimes: number[] = [];
    const server = await startScriptedServer(async (req, res) => {
      const now = Date.now();
      firstAt ??= now;
      if (now - firstAt < THROTTLED_MS) {
        throttledTimes.push(now);
        return sendJson(res, 429, { error: 429, message: 'slow down' }, { 'retry-after': '1' });
      }
      if (req.url === REDACTION) return answerWithSpeech(res);
      return sendJson(res, 404, { error: 404, message: 'not found' });
    });
    try {
      const out = join(dir.path, 'out');
      const run = await runCli(['redact', await speechInputs(dir.path, 3), '-o', out], {
        env: isolatedEnv(dir.path, { VREDACT_BASE_URL: server.baseUrl, VREDACT_TOKEN: TOKEN }),
      });
      expect(run.exitCode, String(run.stderr)).toBe(0);
      expect((await readdir(out)).filter((name) => name.endsWith('.wav')).sort()).toEqual([
        'call-0.wav',
        'call-1.wav',
        'call-2.wav',
      ]);
      // Waits of a second are not said one by one; the stretch is, after 10 s and again after 20 s.
      expect(
        String(run.stderr)
          .split('\n')
          .filter((line) => line.includes('rate-limiting')),
      ).toEqual([expect.stringMatching(stretchLine(1, '30m')), expect.stringMatching(stretchLine(2, '30m'))]);
      // One request per Retry-After period while throttled, with a little slack for the first burst.
      expect(throttledTimes.length).toBeLessThanOrEqual(THROTTLED_MS / 1000 + 6);
      expect(server.received.filter((r) => r.url === REDACTION).length).toBeLessThanOrEqual(
        throttledTimes.length + 3,
      );
    } finally {
      await server.close();
    }
  }, 120_000);

  test('a Retry-After of an hour fails at once, naming the wait and when to try again; nothing more is sent', async () => {
    const server = await startScriptedServer((_req, res) =>
      sendJson(res, 429, { error: 429, message: 'quota exhausted' }, { 'retry-after': '3600' }),
    );
    try {
      const run = await runCli(['redact', await speechInputs(dir.path, 8), '-o', join(dir.path, 'out')], {
        env: isolatedEnv(dir.path, { VREDACT_BASE_URL: server.baseUrl, VREDACT_TOKEN: TOKEN }),
      });
      expect(run.exitCode).toBe(1);
      expect(String(run.stdout) + String(run.stderr)).toMatch(
        /the service asked to wait 1h 0m \(until \d{4}-\d\d-\d\d \d\d:\d\d UTC\); try again then/,
      );
      // Only the first uploads (-c, 4 by default) went before the answer came; none after it.
      expect(server.received.length).toBeGreaterThanOrEqual(1);
      expect(server.received.length).toBeLessThanOrEqual(4);
    } finally {
      await server.close();
    }
  });

  test('a Retry-After past any date stops the batch: the file it answered fails naming the wait, the files never sent stay pending "(not sent)", exit 1', async () => {
    const server = await startScriptedServer((_req, res) =>
      sendJson(res, 429, { error: 429, message: 'never' }, { 'retry-after': '99999999999999999999' }),
    );
    try {
      const out = join(dir.path, 'out');
      const env = isolatedEnv(dir.path, { VREDACT_BASE_URL: server.baseUrl, VREDACT_TOKEN: TOKEN });
      const run = await runCli(['redact', await speechInputs(dir.path, 6), '-o', out, '--json', '-c', '1'], {
        env,
      });
      expect(run.exitCode).toBe(1);
      const lines = jsonLines(run.stdout);
      expect(lines.at(-1)).toMatchObject({ summary: { failed: 1, pending: 5, done: 0 } });
      const files = lines.slice(0, -1);
      expect(files.filter((line) => line.status === 'failed')).toEqual([
        expect.objectContaining({
          reason: expect.stringMatching(/the service asked to wait more than a year; try again then$/),
        }),
      ]);
      const pending = files.filter((line) => line.status === 'pending');
      expect(pending).toHaveLength(5);
      for (const line of pending) {
        expect(line.reason).toBe(
          'not finished: the batch stopped: the service asked to wait more than a year; try again then (not sent)',
        );
      }
      // One upload met the answer; nothing was sent after it.
      expect(server.received).toHaveLength(1);
      expect(String(run.stderr)).toMatch(
        /^error: the batch stopped: redacting call-\d\.wav: the service asked to wait more than a year; try again then$/m,
      );
      expect(String(run.stderr)).not.toMatch(/Invalid time value|stopped before its work was finished/);
      // The journal holds one failure: the files never sent are sent by the next run, as after a full disk.
      const status = await runCli(['status', '-o', out, '--json'], { env });
      expect(JSON.parse(String(status.stdout))).toMatchObject({
        counts: { done: 0, uploading: 0, pending: 0, failed: 1 },
      });
    } finally {
      await server.close();
    }
  });

  test('a Retry-After past any date while a job is collected leaves the job pending at once, for a later run, rather than polling on', async () => {
    const server = await startScriptedServer((req, res) => {
      if (req.url === REDACTION) return sendJson(res, 202, { job_id: 'j1' });
      return sendJson(res, 429, { error: 429, message: 'never' }, { 'retry-after': '99999999999999999999' });
    });
    try {
      const run = await runCli(
        ['redact', await speechInputs(dir.path, 1), '-o', join(dir.path, 'out'), '--json', '--verbose'],
        { env: isolatedEnv(dir.path, { VREDACT_BASE_URL: server.baseUrl, VREDACT_TOKEN: TOKEN }) },
      );
      expect(run.exitCode).toBe(1);
      expect(JSON.parse(String(run.stdout).split('\n')[0] ?? '')).toMatchObject({
        status: 'pending',
        jobId: 'j1',
        reason: expect.stringMatching(
          /the service asked to wait more than a year; try again then.*a later run collects it/,
        ),
      });
      // Each poll after the refusal is refused in the run itself: the job was given up at the first.
      expect(String(run.stderr).match(/job j1: reading job j1: the service asked to wait/g) ?? []).toEqual(
        [],
      );
      expect(server.received.filter((r) => r.url === '/api/jobs/j1/content')).toHaveLength(1);
    } finally {
      await server.close();
    }
  }, 150_000);

  test('429s without Retry-After past --max-throttle-wait stop the batch as a long Retry-After does: the upload that met it fails, the files never sent stay pending "(not sent)", exit 1; the next run sends them', async () => {
    let throttling = true;
    const server = await startScriptedServer((req, res) => {
      if (throttling) return sendJson(res, 429, { error: 429, message: 'slow down' });
      if (req.url === REDACTION) return answerWithSpeech(res);
      return sendJson(res, 404, { error: 404, message: 'not found' });
    });
    try {
      const out = join(dir.path, 'out');
      const env = isolatedEnv(dir.path, { VREDACT_BASE_URL: server.baseUrl, VREDACT_TOKEN: TOKEN });
      const inputs = await speechInputs(dir.path, 6);
      const args = ['redact', inputs, '-o', out, '--json', '-c', '1', '--max-throttle-wait', '3s'];
      const run = await runCli(args, { env });
      expect(run.exitCode).toBe(1);
      const lines = jsonLines(run.stdout);
      expect(lines.at(-1)).toMatchObject({ summary: { failed: 1, pending: 5, done: 0 } });
      const givenUp =
        'the service has been throttling requests for \\d+s \\(--max-throttle-wait 3s\\); try again later, or raise --max-throttle-wait';
      const files = lines.slice(0, -1);
      expect(files.filter((line) => line.status === 'failed')).toEqual([
        expect.objectContaining({
          reason: expect.stringMatching(new RegExp(`^redacting call-\\d\\.wav: ${givenUp}$`)),
        }),
      ]);
      const pending = files.filter((line) => line.status === 'pending');
      expect(pending).toHaveLength(5);
      for (const line of pending) {
        expect(line.reason).toMatch(
          new RegExp(`^not finished: the batch stopped: ${givenUp} \\(not sent\\)$`),
        );
      }
      expect(String(run.stderr)).toMatch(
        new RegExp(`^error: the batch stopped: redacting call-\\d\\.wav: ${givenUp}$`, 'm'),
      );
      // The journal holds the one failure; the files never sent have no line that says they failed.
      const status = await runCli(['status', '-o', out, '--json'], { env });
      expect(JSON.parse(String(status.stdout))).toMatchObject({
        counts: { done: 0, uploading: 0, pending: 0, failed: 1 },
      });
      throttling = false;
      const next = await runCli(args, { env });
      expect(next.exitCode, String(next.stderr)).toBe(0);
      expect((await readdir(out)).filter((name) => name.endsWith('.wav'))).toHaveLength(6);
    } finally {
      await server.close();
    }
  }, 60_000);

  test('a job being collected when 429s past --max-throttle-wait stop the batch stays pending with its id; the file not yet sent stays pending "(not sent)"', async () => {
    const server = await startScriptedServer((req, res, _body, index) => {
      if (index === 0 && req.url === REDACTION) return sendJson(res, 202, { job_id: 'j1' });
      return sendJson(res, 429, { error: 429, message: 'slow down' });
    });
    try {
      const run = await runCli(
        [
          'redact',
          await speechInputs(dir.path, 3),
          '-o',
          join(dir.path, 'out'),
          '--json',
          '-c',
          '1',
          '--max-throttle-wait',
          '3s',
        ],
        { env: isolatedEnv(dir.path, { VREDACT_BASE_URL: server.baseUrl, VREDACT_TOKEN: TOKEN }) },
      );
      expect(run.exitCode).toBe(1);
      const lines = jsonLines(run.stdout);
      expect(lines.at(-1)).toMatchObject({ summary: { failed: 1, pending: 2, done: 0 } });
      const files = lines.slice(0, -1);
      expect(files.find((line) => line.jobId === 'j1')).toMatchObject({
        status: 'pending',
        reason: expect.stringMatching(/the service has been throttling requests for .*later run collects it/),
      });
      expect(files.filter((line) => line.status === 'pending' && line.jobId === undefined)).toEqual([
        expect.objectContaining({
          reason: expect.stringMatching(
            /^not finished: the batch stopped: .*throttling requests.* \(not sent\)$/,
          ),
        }),
      ]);
    } finally {
      await server.close();
    }
  }, 60_000);

  test('a batch against `vredact sandbox --rate-limit 2/1s` finishes every file', async () => {
    const sandbox = await startSandboxProcess(['--rate-limit', '2/1s']);
    try {
      const out = join(dir.path, 'out');
      const run = await runCli(['redact', await speechInputs(dir.path, 6), '-o', out, '--json'], {
        env: isolatedEnv(dir.path, { VREDACT_BASE_URL: sandbox.baseUrl, VREDACT_TOKEN: sandbox.token }),
      });
      expect(run.exitCode, String(run.stderr)).toBe(0);
      expect((await readdir(out)).filter((name) => name.endsWith('.wav'))).toHaveLength(6);
      const statuses = (await sandbox.requests()).map((request) => request.status);
      expect(statuses).toContain(429);
    } finally {
      await sandbox.stop();
    }
  }, 120_000);
});

describe('a throttled support command', () => {
  /** Answers 429 with `Retry-After: 2` to the first request, then the listing of one job. */
  const throttledOnce = () =>
    startScriptedServer((_req, res, _body, index) =>
      index === 0
        ? sendJson(res, 429, { error: 429, message: 'slow down' }, { 'retry-after': '2' })
        : sendJson(res, 200, { jobs: [{ job_id: 'j1', created_at: '2026-11-21T05:14:03Z' }] }),
    );

  test('jobs list answered 429 Retry-After: 2, then 200: one line on stderr says it waits and why; --json stdout is the jobs alone', async () => {
    const server = await throttledOnce();
    try {
      const run = await runCli(['jobs', 'list', '--json'], {
        env: isolatedEnv(dir.path, { VREDACT_BASE_URL: server.baseUrl, VREDACT_TOKEN: TOKEN }),
      });
      expect(run.exitCode, String(run.stderr)).toBe(0);
      expect(String(run.stderr).trimEnd().split('\n')).toEqual([
        'waiting 2s: the service is rate-limiting requests (Retry-After)',
      ]);
      expect((JSON.parse(String(run.stdout)) as { job_id: string }[]).map((job) => job.job_id)).toEqual([
        'j1',
      ]);
      expect(server.received).toHaveLength(2);
    } finally {
      await server.close();
    }
  });

  test('jobs list answered `429 Retry-After: 1` for 12 s: no line a second, one line says how long the service has been rate-limiting and how long vredact waits; not with -q; --json stdout is the jobs alone', async () => {
    let firstAt: number | undefined;
    const server = await startScriptedServer((_req, res) => {
      firstAt ??= Date.now();
      if (Date.now() - firstAt < 12_000)
        return sendJson(res, 429, { error: 429, message: 'slow down' }, { 'retry-after': '1' });
      return sendJson(res, 200, { jobs: [{ job_id: 'j1', created_at: '2026-11-21T05:14:03Z' }] });
    });
    try {
      const env = isolatedEnv(dir.path, { VREDACT_BASE_URL: server.baseUrl, VREDACT_TOKEN: TOKEN });
      const [run, quiet] = await Promise.all([
        runCli(['jobs', 'list', '--json', '--max-throttle-wait', '5m'], { env }),
        runCli(['jobs', 'list', '-q'], { env }),
      ]);
      expect(run.exitCode, String(run.stderr)).toBe(0);
      expect(String(run.stderr).trimEnd().split('\n')).toEqual([expect.stringMatching(stretchLine(1, '5m'))]);
      expect((JSON.parse(String(run.stdout)) as { job_id: string }[]).map((job) => job.job_id)).toEqual([
        'j1',
      ]);
      expect(quiet.exitCode, String(quiet.stderr)).toBe(0);
      expect(String(quiet.stderr)).toBe('');
    } finally {
      await server.close();
    }
  }, 60_000);

  test('with -q the wait is not said; the jobs still come', async () => {
    const server = await throttledOnce();
    try {
      const run = await runCli(['jobs', 'list', '-q'], {
        env: isolatedEnv(dir.path, { VREDACT_BASE_URL: server.baseUrl, VREDACT_TOKEN: TOKEN }),
      });
      expect(run.exitCode, String(run.stderr)).toBe(0);
      expect(String(run.stderr)).toBe('');
      expect(String(run.stdout)).toMatch(/^j1\t/);
    } finally {
      await server.close();
    }
  });
});

describe('support commands throttled past --max-throttle-wait', () => {
  test('jobs list, jobs content and download each fail with one line that says what happened and what to do, with no option they lack', async () => {
    const server = await startScriptedServer((_req, res) =>
      sendJson(res, 429, { error: 429, message: 'slow down' }),
    );
    try {
      const env = isolatedEnv(dir.path, { VREDACT_BASE_URL: server.baseUrl, VREDACT_TOKEN: TOKEN });
      const limit = ['--max-throttle-wait', '3s'];
      const runs = await Promise.all([
        runCli(['jobs', 'list', ...limit], { env }),
        runCli(['jobs', 'content', 'job1', ...limit], { env }),
        runCli(['download', 'job1', '-o', join(dir.path, 'out'), ...limit], { env }),
      ]);
      for (const [run, what] of runs.map(
        (run, i) => [run, ['listing jobs', 'reading job job1', 'reading job job1'][i]] as const,
      )) {
        expect(run.exitCode).toBe(1);
        expect(run.stdout).toBe('');
        const lines = String(run.stderr).trimEnd().split('\n');
        expect(lines.filter((line) => line.startsWith('error: '))).toEqual([
          expect.stringMatching(
            new RegExp(
              `^error: ${what}: the service has been throttling requests for \\d+s \\(--max-throttle-wait 3s\\); try again later, or raise --max-throttle-wait$`,
            ),
          ),
        ]);
        // Lowering -c cannot help: the window is one request already, and these have no -c.
        expect(String(run.stderr)).not.toContain('-c');
      }
    } finally {
      await server.close();
    }
  });
});

describe('support commands answered 429 to everything, with --max-retries 1', () => {
  test.each([
    ['with Retry-After: 1', { 'retry-after': '1' }],
    ['without Retry-After', {}],
  ])(
    '%s: jobs list, jobs content, download and login each end within --max-throttle-wait, exit 1 with one line; a bounded number of requests',
    async (_, headers: Record<string, string>) => {
      const commands = [
        { args: ['jobs', 'list'], what: 'listing jobs' },
        { args: ['jobs', 'content', 'job1'], what: 'reading job job1' },
        { args: ['download', 'job1', '-o', join(dir.path, 'out')], what: 'reading job job1' },
        {
          args: ['login', '--token-stdin'],
          what: 'the token could not be checked, so it was not stored: listing jobs',
        },
      ];
      const servers = await Promise.all(
        commands.map(() =>
          startScriptedServer((_req, res) =>
            sendJson(res, 429, { error: 429, message: 'slow down' }, headers),
          ),
        ),
      );
      try {
        const runs = await Promise.all(
          commands.map(({ args }, i) => {
            const configDir = join(dir.path, `cfg-${i}`);
            const token = args[0] === 'login' ? {} : { VREDACT_TOKEN: TOKEN };
            return runCli([...args, '--max-retries', '1', '--max-throttle-wait', '3s'], {
              env: isolatedEnv(configDir, { VREDACT_BASE_URL: servers[i]!.baseUrl, ...token }),
              input: TOKEN,
            });
          }),
        );
        for (const [i, run] of runs.entries()) {
          const { args, what } = commands[i]!;
          const name = args.slice(0, 2).join(' ');
          expect(run.exitCode, name).toBe(1);
          expect(run.stdout, name).toBe('');
          expect(
            String(run.stderr)
              .split('\n')
              .filter((line) => line.startsWith('error: ')),
            name,
          ).toEqual([
            expect.stringMatching(
              new RegExp(
                `^error: ${what}: the service has been throttling requests for \\d+s \\(--max-throttle-wait 3s\\); try again later, or raise --max-throttle-wait$`,
              ),
            ),
          ]);
          // Throttles do not use up --max-retries (more than its 2 attempts), and they end: a few
          // requests in 3 s, none once the command has given up.
          const requests = servers[i]!.received.length;
          expect(requests, name).toBeGreaterThanOrEqual(2);
          expect(requests, name).toBeLessThanOrEqual(8);
        }
        expect(existsSync(join(dir.path, 'cfg-3', 'config.json'))).toBe(false);
      } finally {
        await Promise.all(servers.map((server) => server.close()));
      }
    },
    60_000,
  );
});

/** A loopback port with nothing listening on it. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as import('node:net').AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe('connection problems', () => {
  test('a refused connection names the host and port and what to check', async () => {
    const port = await closedPort();
    const run = await runCli(['jobs', 'list', '--max-retries', '0'], {
      env: isolatedEnv(dir.path, { VREDACT_BASE_URL: `http://127.0.0.1:${port}`, VREDACT_TOKEN: TOKEN }),
    });
    expect(run.exitCode).toBe(1);
    expect(String(run.stderr)).toContain(`cannot connect to 127.0.0.1:${port} (connection refused)`);
    expect(String(run.stderr)).toContain('is the service URL right? check the URL set in VREDACT_BASE_URL');
  });

  test('while a refused connection is retried past 2 s, one line says so (not with -q)', async () => {
    const port = await closedPort();
    const env = isolatedEnv(dir.path, { VREDACT_BASE_URL: `http://127.0.0.1:${port}`, VREDACT_TOKEN: TOKEN });
    // Enough retries that the retrying certainly passes 2 s; the run is stopped once the line is seen.
    const child = runCli(['jobs', 'list', '--max-retries', '8'], {
      env,
      buffer: { stdout: true, stderr: true },
    });
    child.stderr?.on('data', (chunk: Buffer) => {
      if (chunk.toString('utf8').includes('still trying')) child.kill('SIGTERM');
    });
    const run = await child;
    const lines = String(run.stderr).split('\n');
    expect(lines.filter((line) => line.includes('still trying'))).toHaveLength(1);
    expect(lines.find((line) => line.includes('still trying'))).toContain(
      `cannot connect to 127.0.0.1:${port} (connection refused)`,
    );
    const quiet = await runCli(['jobs', 'list', '-q'], { env });
    expect(quiet.exitCode).toBe(1);
    expect(String(quiet.stderr)).not.toContain('still trying');
  }, 60_000);
});
