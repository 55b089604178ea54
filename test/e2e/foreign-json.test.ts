/**
 * JSON as servers and gateways vredact's team did not write send it, through the built binary: a
 * UTF-8 byte order mark before an answer (RFC 8259 lets a reader ignore it; .NET and PowerShell
 * services write one), and errors as RFC 9457 problems (`application/problem+json`, with `title`
 * and `detail` in place of the interface's `message`).
 */
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { isolatedEnv, runCli, tempDirPerTest } from '../helpers/cli.js';
import { type ScriptedServer, sendJsonText, startScriptedServer } from '../helpers/scripted-server.js';
import { speechInputs } from '../helpers/speech-files.js';

const TOKEN = 'vr_foreign_0123456789abcdef';
const BOM = '\uFEFF';
const dir = tempDirPerTest('vredact-foreign-json-');

const envFor = (server: ScriptedServer) =>
  isolatedEnv(join(dir.path, '.config'), { VREDACT_BASE_URL: server.baseUrl, VREDACT_TOKEN: TOKEN });

/** Every JSON answer with a byte order mark: an upload makes job `job1`, which lists nothing yet. */
const startBomService = () =>
  startScriptedServer((req, res) => {
    const url = req.url ?? '';
    if (url === '/api/speech-to-speech-biometric-redaction')
      return sendJsonText(res, 202, `${BOM}{"job_id": "job1", "status": "queued"}`);
    if (url === '/api/jobs') return sendJsonText(res, 200, `${BOM}{"jobs": []}`);
    if (url === '/api/jobs/job1/content') return sendJsonText(res, 200, `${BOM}{"jobContent": []}`);
    sendJsonText(res, 404, `${BOM}{"error": 404, "message": "no such thing"}`);
  });

describe('JSON answers that begin with a byte order mark', () => {
  test('an empty listing is an empty listing, in jobs list and jobs content, exit 0', async () => {
    const server = await startBomService();
    try {
      const jobs = await runCli(['jobs', 'list', '--json'], { env: envFor(server) });
      expect(jobs.exitCode, String(jobs.stderr)).toBe(0);
      expect(JSON.parse(String(jobs.stdout))).toEqual([]);
      const content = await runCli(['jobs', 'content', 'job1', '--json'], { env: envFor(server) });
      expect(content.exitCode, String(content.stderr)).toBe(0);
      expect(JSON.parse(String(content.stdout))).toEqual([]);
    } finally {
      await server.close();
    }
  });

  test('a job the upload named, not listing its result yet, is submitted, not "not found"; an error keeps its message', async () => {
    const server = await startBomService();
    try {
      const input = await speechInputs(dir.path, 1);
      const output = join(dir.path, 'out');
      const run = await runCli(['redact', join(input, 'call-0.wav'), '-o', output, '--no-wait'], {
        env: envFor(server),
      });
      expect(run.exitCode, String(run.stderr)).toBe(0);
      expect(String(run.stdout)).toMatch(
        /^pending\t.*call-0\.wav\tsubmitted as job job1; a later run collects it$/,
      );
      const missing = await runCli(['jobs', 'content', 'nosuch'], { env: envFor(server) });
      expect(missing.exitCode).toBe(1);
      expect(String(missing.stderr)).toContain('the service answered 404 Not Found: no such thing');
    } finally {
      await server.close();
    }
  });
});

describe('errors as RFC 9457 problems', () => {
  test("the problem's detail, else its title, is the service's message", async () => {
    const server = await startScriptedServer((req, res) => {
      const problem = (req.url ?? '').includes('/api/jobs/gone/')
        ? { type: 'about:blank', title: 'Job Gone', status: 410 }
        : { type: 'about:blank', title: 'Not Found', status: 404, detail: 'job nosuch does not exist' };
      sendJsonText(res, problem.status, JSON.stringify(problem), {
        'content-type': 'application/problem+json',
      });
    });
    try {
      const missing = await runCli(['jobs', 'content', 'nosuch'], { env: envFor(server) });
      expect(missing.exitCode).toBe(1);
      expect(String(missing.stderr)).toContain(
        'error: reading job nosuch: the service answered 404 Not Found: job nosuch does not exist\n',
      );
      const gone = await runCli(['jobs', 'content', 'gone'], { env: envFor(server) });
      expect(gone.exitCode).toBe(1);
      expect(String(gone.stderr)).toContain(
        'error: reading job gone: the service answered 410 Gone: Job Gone\n',
      );
    } finally {
      await server.close();
    }
  });
});
