/**
 * A first interrupt of `vredact redact` while it collects an asynchronous job whose poll, link or
 * result download only waits to be tried again (a 503 naming a wait: the throttle's gate; a 500
 * naming one: the backoff): nothing is tried again, the job stays pending "not finished: interrupted"
 * for the next run, no result is saved, exit 130; the next run collects it without sending the file
 * again. Through the built binary, against a scripted asynchronous service that refuses one request once.
 */
import { mkdir, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { collectStderr, isolatedEnv, runCli, tempDirPerTest } from '../helpers/cli.js';
import { isWav, until } from '../helpers/e2e.js';
import { makeWav } from '../helpers/mp3.js';
import { type ScriptedServer, startScriptedServer } from '../helpers/scripted-server.js';
import { asyncJobRoutes, refusalOnce, requestsOf } from '../helpers/async-job-service.js';

const REDACT = '/api/speech-to-speech-biometric-redaction';
const CONTENT = '/api/jobs/job-1/content';
const LINK = '/api/jobs/job-1/files/download-url';
const RESULT = '/files/job-1';
const dir = tempDirPerTest('vredact-e2e-collect-waits-');
let server: ScriptedServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** Which of the job's requests is refused once: its poll, its link (POST), or its result (GET). */
type Refused = 'poll' | 'link' | 'result';
const REFUSED_AT: Record<Refused, { method: string; url: string }> = {
  poll: { method: 'GET', url: CONTENT },
  link: { method: 'POST', url: LINK },
  result: { method: 'GET', url: RESULT },
};

/**
 * A service that answers each upload with a job, finished at once, whose result is 7 s of 16 kHz
 * speech; the first request `refused` names is answered `status` with a wait of 30 s (Retry-After).
 */
async function refusingOnce(refused: Refused, status: number): Promise<ScriptedServer> {
  const refuse = refusalOnce(status);
  const at = REFUSED_AT[refused];
  const routes = asyncJobRoutes(() => started.baseUrl);
  const started = await startScriptedServer((req, res, body) => {
    const url = new URL(req.url ?? '/', 'http://x');
    if (req.method === at.method && url.pathname === at.url && refuse(res)) return;
    routes(req, res, body);
  });
  return started;
}

describe('redact: a first interrupt gives up a collect request that waits to be tried again', () => {
  it.each([
    ['poll', 503],
    ['link', 503],
    ['result', 503],
    ['result', 500],
  ] as const)(
    'its %s answered %s with Retry-After: the job stays pending "not finished: interrupted", no result, exit 130; the next run collects it',
    async (refused, status) => {
      server = await refusingOnce(refused, status);
      const target = server;
      await mkdir(join(dir.path, 'in'));
      await writeFile(join(dir.path, 'in', 'a.wav'), makeWav(7));
      const out = join(dir.path, 'out');
      const env = isolatedEnv(join(dir.path, 'config'), {
        VREDACT_BASE_URL: target.baseUrl,
        VREDACT_TOKEN: 'vr_test_collect_waits',
      });
      const run = () => runCli(['redact', 'in', '-o', out], { cwd: dir.path, env });
      const child = run();
      const stderr = collectStderr(child);
      const { method, url } = REFUSED_AT[refused];
      await until(async () => requestsOf(target, method, url) === 1, 30_000);
      child.kill('SIGINT');
      const result = await child;

      expect(result.exitCode, `signal ${String(result.signal)}; stderr: ${stderr()}`).toBe(130);
      // Given up in its wait: never asked again, and nothing after it started.
      expect(requestsOf(target, method, url)).toBe(1);
      if (refused !== 'result') expect(requestsOf(target, 'GET', RESULT)).toBe(0);
      expect(String(result.stdout)).toMatch(
        /^pending\tin\/a\.wav\tnot finished: interrupted; job job-1 is collected by a later run$/m,
      );
      expect(
        (await readdir(out).catch(() => [] as string[])).filter((name) => name.endsWith('.wav')),
      ).toEqual([]);

      const again = await run();
      expect(again.exitCode, String(again.stderr)).toBe(0);
      expect(await isWav(join(out, 'a.wav'))).toBe(true);
      expect(requestsOf(target, 'POST', REDACT)).toBe(1);
    },
    90_000,
  );
});
