/**
 * A first interrupt of `vredact download` while a file's request only waits to be tried again (at
 * the throttle's gate after a 503 naming a wait, or in the backoff after a 500): nothing is tried
 * again, the file is pending "not finished: interrupted", nothing is saved, exit 130, and the next
 * run fetches it. Through the built binary, against a scripted service that refuses one request once.
 */
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { collectStderr, isolatedEnv, runCli, tempDirPerTest } from '../helpers/cli.js';
import { until } from '../helpers/e2e.js';
import { savedFiles, seededWav } from '../helpers/holding-file-host.js';
import { type ScriptedServer, sendJson, startScriptedServer } from '../helpers/scripted-server.js';
import { refusalOnce, requestsOf } from '../helpers/async-job-service.js';

const dir = tempDirPerTest('vredact-e2e-download-int-waits-');
let server: ScriptedServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const files = { 'f0.wav': seededWav(1), 'f1.wav': seededWav(2) };
const LINK = '/api/jobs/job1/files/download-url';

/** Which request of f0.wav is refused once: its link (POST) or its file (GET). */
type Refused = 'link' | 'file';

/**
 * A job of two files whose first request of `refused` is answered `status` with a wait of 30 s
 * (Retry-After), every other request as it should be.
 */
async function refusingOnce(refused: Refused, status: number): Promise<ScriptedServer> {
  const refuse = refusalOnce(status);
  const started = await startScriptedServer((req, res, body) => {
    const url = req.url ?? '';
    if (url === '/api/jobs/job1/content') {
      const jobContent = Object.keys(files).map((name, i) => ({
        id: i + 1,
        job_id: 'job1',
        file_name: name,
        audio_duration: null,
        created_at: '2024-01-01T00:00:00Z',
      }));
      return sendJson(res, 200, { jobContent });
    }
    if (url === LINK) {
      if (refused === 'link' && refuse(res)) return;
      const { fileName } = JSON.parse(body.toString('utf8')) as { fileName: string };
      return sendJson(res, 200, { signedUrl: `${started.baseUrl}/files/${encodeURIComponent(fileName)}` });
    }
    const bytes = url.startsWith('/files/')
      ? files[url.slice('/files/'.length) as keyof typeof files]
      : undefined;
    if (!bytes) return sendJson(res, 404, { error: 'not_found', message: 'no such file' });
    if (refused === 'file' && refuse(res)) return;
    res.writeHead(200, { 'content-type': 'audio/wav', 'content-length': String(bytes.length) });
    res.end(bytes);
  });
  return started;
}

describe('download: a first interrupt gives up a request that waits to be tried again', () => {
  it.each([
    ['file', 503, 'the file answered 503 with Retry-After (the throttle gate)'],
    ['file', 500, 'the file answered 500 with Retry-After (the backoff)'],
    ['link', 503, 'its link answered 503 with Retry-After (the throttle gate)'],
  ] as const)(
    '%s %s: %s; pending "not finished: interrupted", nothing saved, exit 130; a re-run fetches it',
    async (refused, status, _how) => {
      server = await refusingOnce(refused, status);
      const target = server;
      const out = join(dir.path, 'out');
      const env = isolatedEnv(join(dir.path, 'config'), {
        VREDACT_BASE_URL: target.baseUrl,
        VREDACT_TOKEN: 'vr_test_interrupt_waits',
      });
      const child = runCli(['download', 'job1', '-c', '1', '-o', out], { env });
      const stderr = collectStderr(child);
      const refusedUrl = refused === 'link' ? LINK : '/files/f0.wav';
      const refusedMethod = refused === 'link' ? 'POST' : 'GET';
      await until(async () => requestsOf(target, refusedMethod, refusedUrl) === 1, 30_000);
      child.kill('SIGINT');
      const result = await child;

      expect(result.exitCode, `signal ${String(result.signal)}; stderr: ${stderr()}`).toBe(130);
      // Given up in its wait: never asked again.
      expect(requestsOf(target, refusedMethod, refusedUrl)).toBe(1);
      if (refused === 'link') expect(requestsOf(target, 'GET', '/files/f0.wav')).toBe(0);
      expect(await readdir(out).catch(() => [])).toEqual([]);
      expect(String(result.stdout)).toBe('');
      expect(stderr()).toMatch(/^warning: f0\.wav: not finished: interrupted$/m);
      expect(stderr()).not.toMatch(/^error: f\d\.wav/m);
      expect(stderr()).toMatch(
        /^0 downloaded, 0 skipped, 0 failed, 2 pending \(1 interrupted, 1 not started\)$/m,
      );

      const again = await runCli(['download', 'job1', '-c', '1', '-o', out], { env });
      expect(again.exitCode, String(again.stderr)).toBe(0);
      expect(await savedFiles(out, { files })).toEqual({ names: ['f0.wav', 'f1.wav'], whole: true });
    },
    90_000,
  );

  it('--json: the file given up in its wait is pending "not finished: interrupted", with no path', async () => {
    server = await refusingOnce('file', 503);
    const target = server;
    const out = join(dir.path, 'out');
    const env = isolatedEnv(join(dir.path, 'config'), {
      VREDACT_BASE_URL: target.baseUrl,
      VREDACT_TOKEN: 'vr_test_interrupt_waits',
    });
    const child = runCli(['download', 'job1', '-c', '1', '-o', out, '--json'], { env });
    await until(async () => requestsOf(target, 'GET', '/files/f0.wav') === 1, 30_000);
    child.kill('SIGINT');
    const result = await child;

    expect(result.exitCode, String(result.stderr)).toBe(130);
    expect(requestsOf(target, 'GET', '/files/f0.wav')).toBe(1);
    const outcomes = JSON.parse(String(result.stdout)) as Array<Record<string, unknown>>;
    const f0 = outcomes.find((outcome) => outcome.fileName === 'f0.wav');
    expect(f0).toMatchObject({ status: 'pending', reason: 'not finished: interrupted', path: null });
  }, 90_000);
});
