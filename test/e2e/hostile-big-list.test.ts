/**
 * Big answers: 200,000 jobs (about 22 MB of JSON) list whole, through `jobs list` and the crash
 * recovery's look-up alike (both read the list as a stream). The peak memory is measured in the README.
 */
import { describe, expect, test } from 'vitest';
import { isolatedEnv, runCli, tempDirPerTest } from '../helpers/cli.js';
import { sendJson, startScriptedServer } from '../helpers/scripted-server.js';

const TOKEN = 'vr_biglist_0123456789abcdef';
const JOBS = 200_000;
const dir = tempDirPerTest('vredact-hostile-big-');

/** `{"jobs":[…]}` with `count` jobs, oldest first, about 110 bytes each. */
function bigJobList(count: number, token: string): Buffer {
  const parts: string[] = [];
  const start = Date.parse('2026-01-01T00:00:00Z');
  for (let i = 0; i < count; i++) {
    const id = `${String(i).padStart(8, '0')}-5c1b-4aa6-9c0f-0b1f2e3d4c5b`;
    parts.push(
      `{"job_id":"${id}","token":"${token}","created_at":"${new Date(start + i * 1000).toISOString()}"}`,
    );
  }
  return Buffer.from(`{"jobs":[${parts.join(',')}]}`);
}

describe('a list of 200,000 jobs', () => {
  test('jobs list prints every job, newest first', async () => {
    const body = bigJobList(JOBS, TOKEN);
    expect(body.length).toBeGreaterThan(20 * 1024 * 1024);
    const server = await startScriptedServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': body.length });
      res.end(body);
    });
    try {
      const run = await runCli(['jobs', 'list'], {
        env: isolatedEnv(dir.path, { VREDACT_BASE_URL: server.baseUrl, VREDACT_TOKEN: TOKEN }),
      });
      expect(run.exitCode, String(run.stderr)).toBe(0);
      const lines = String(run.stdout).trimEnd().split('\n');
      expect(lines).toHaveLength(JOBS);
      expect(lines[0]?.startsWith(String(JOBS - 1).padStart(8, '0'))).toBe(true);
      expect(lines[0]?.endsWith('\tvr_…cdef')).toBe(true);
    } finally {
      await server.close();
    }
  }, 120_000);

  test('a 404 on the jobs list hints at the base URL', async () => {
    const server = await startScriptedServer((_req, res) =>
      sendJson(res, 404, { error: 404, message: 'no route' }),
    );
    try {
      const withApi = await runCli(['jobs', 'list'], {
        env: isolatedEnv(dir.path, { VREDACT_BASE_URL: `${server.baseUrl}/api`, VREDACT_TOKEN: TOKEN }),
      });
      expect(withApi.exitCode).toBe(1);
      expect(String(withApi.stderr)).toContain('the base URL should not end in /api');
      expect(server.received[0]?.url).toBe('/api/api/jobs');
      const withPath = await runCli(['jobs', 'list'], {
        env: isolatedEnv(dir.path, { VREDACT_BASE_URL: `${server.baseUrl}/v2`, VREDACT_TOKEN: TOKEN }),
      });
      expect(String(withPath.stderr)).toContain(
        'the base URL holds a path (/v2) the service may not answer on',
      );
    } finally {
      await server.close();
    }
  });
});
