/**
 * A hostile service's JSON: an answer nesting a million levels deep fails at once with a clear
 * error (the parser would otherwise build a stack level per `[`), and a created job's id that would
 * change a request path is refused, as every command that would use it refuses it.
 */
import { describe, expect, test } from 'vitest';
import { isolatedEnv, runCli, tempDirPerTest } from '../helpers/cli.js';
import { sendJson, startScriptedServer } from '../helpers/scripted-server.js';

const TOKEN = 'vr_hostile_json_0123456789';
const dir = tempDirPerTest('vredact-hostile-json-');

/** A first list item whose field `x` opens a million arrays and never closes them. */
function deepList(key: string, item: string): Buffer {
  return Buffer.concat([Buffer.from(`{"${key}":[{${item},"x":`), Buffer.alloc(1_040_000, '[')]);
}

const env = (baseUrl: string) => isolatedEnv(dir.path, { VREDACT_BASE_URL: baseUrl, VREDACT_TOKEN: TOKEN });

describe('an answer nesting deeper than 64 levels', () => {
  test('jobs list and jobs content fail with a clear error, exit 1', async () => {
    const jobs = deepList('jobs', '"job_id":"a","token":"b","created_at":"2026-01-01T00:00:00Z"');
    const content = deepList('jobContent', '"id":1,"job_id":"a","file_name":"a.wav","audio_duration":1');
    const server = await startScriptedServer((req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(req.url === '/api/jobs' ? jobs : content);
    });
    try {
      const list = await runCli(['jobs', 'list'], { env: env(server.baseUrl) });
      expect(list.exitCode).toBe(1);
      expect(String(list.stderr)).toContain(
        "error: listing jobs: the service's answer nests deeper than 64 levels",
      );
      expect(String(list.stdout)).toBe('');
      const items = await runCli(['jobs', 'content', 'a'], { env: env(server.baseUrl) });
      expect(items.exitCode).toBe(1);
      expect(String(items.stderr)).toContain(
        "error: reading job a: the service's answer nests deeper than 64 levels",
      );
    } finally {
      await server.close();
    }
  });
});

describe('jobs list and created_at', () => {
  test('a created_at that is not a date-time is shown as it came and sorted last, never read as a made-up date', async () => {
    const jobs = [
      { job_id: 'odd-1', token: 'x', created_at: 'job 5' },
      { job_id: 'new', token: 'x', created_at: '2026-11-21T05:14:03Z' },
      { job_id: 'odd-2', token: 'x', created_at: 7 },
      { job_id: 'old', token: 'x', created_at: '2025-01-02T03:04:05+01:00' },
    ];
    const server = await startScriptedServer((_req, res) => sendJson(res, 200, { jobs }));
    try {
      const run = await runCli(['jobs', 'list'], { env: env(server.baseUrl) });
      expect(run.exitCode).toBe(0);
      const rows = String(run.stdout)
        .trim()
        .split('\n')
        .map((line) => line.split('\t').slice(0, 2));
      // Date.parse made `job 5` May 2001 and `7` July 2001.
      expect(rows).toEqual([
        ['new', '2026-11-21 05:14:03'],
        ['old', '2025-01-02 02:04:05'],
        ['odd-1', 'job 5'],
        ['odd-2', '7'],
      ]);
    } finally {
      await server.close();
    }
  });
});

describe('jobs create', () => {
  test('a new job id that would change a request path is refused, exit 1, nothing printed', async () => {
    const server = await startScriptedServer((_req, res) => sendJson(res, 201, { job_id: '../../admin' }));
    try {
      const run = await runCli(['jobs', 'create'], { env: env(server.baseUrl) });
      expect(run.exitCode).toBe(1);
      expect(String(run.stdout)).toBe('');
      expect(String(run.stderr)).toContain(
        'error: creating a job: the service gave the job id "../../admin", which cannot be used (it contains a character that would change the request path)',
      );
      const json = await runCli(['jobs', 'create', '--json'], { env: env(server.baseUrl) });
      expect(json.exitCode).toBe(1);
      expect(String(json.stdout)).toBe('');
    } finally {
      await server.close();
    }
  });

  test('a usable job id is printed, exit 0', async () => {
    const server = await startScriptedServer((_req, res) => sendJson(res, 201, { job_id: 'job-42' }));
    try {
      const run = await runCli(['jobs', 'create'], { env: env(server.baseUrl) });
      expect(run.exitCode).toBe(0);
      expect(String(run.stdout)).toBe('job-42');
    } finally {
      await server.close();
    }
  });
});
