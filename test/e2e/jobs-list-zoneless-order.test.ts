/**
 * `jobs list` against a service whose listing mixes times with a zone, epoch numbers and times
 * without one (its local time, here UTC-5): the rows are in the order the jobs were made. Read as
 * UTC, the zone-less jobs of a service west of UTC were shown hours down the list, under older jobs
 * of the other forms, and `--limit` left the newest out.
 */
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { isolatedEnv, runCli, tempDirPerTest } from '../helpers/cli.js';
import { type ScriptedServer, sendJson, startScriptedServer } from '../helpers/scripted-server.js';

const TOKEN = 'vr_zoneless_0123456789abcdef';
const HOUR = 3_600_000;
const dir = tempDirPerTest('vredact-jobs-list-zoneless-');

/** The newest made first: how many minutes before the listing each job was made, and its form. */
const JOBS: ReadonlyArray<readonly [string, number, 'zoneless' | 'zoned' | 'epoch']> = [
  ['local-1', 1, 'zoneless'],
  ['offset-10', 10, 'zoned'],
  ['local-30', 30, 'zoneless'],
  ['zoned-60', 60, 'zoned'],
  ['epoch-120', 120, 'epoch'],
  ['local-180', 180, 'zoneless'],
];

/** A job's `created_at` as a service at UTC-5 writes it, `minutesAgo` before `now`. */
function createdAt(now: number, minutesAgo: number, form: 'zoneless' | 'zoned' | 'epoch'): string {
  const ms = now - minutesAgo * 60_000;
  if (form === 'epoch') return String(Math.floor(ms / 1000));
  if (form === 'zoned') return new Date(ms).toISOString().replace('Z', '+00:00');
  return new Date(ms - 5 * HOUR).toISOString().slice(0, 19);
}

/** Lists the jobs in an order of its own (none stated), their times from when it is asked. */
const startMixedService = () =>
  startScriptedServer((req, res) => {
    if (req.url !== '/api/jobs') return sendJson(res, 404, { error: 404, message: 'no such thing' });
    const now = Date.now();
    const listed = [3, 0, 5, 1, 4, 2].map((i) => JOBS[i]!);
    sendJson(res, 200, {
      jobs: listed.map(([id, minutesAgo, form]) => ({
        job_id: id,
        token: TOKEN,
        created_at: createdAt(now, minutesAgo, form),
      })),
    });
  });

const envFor = (server: ScriptedServer) =>
  isolatedEnv(join(dir.path, '.config'), { VREDACT_BASE_URL: server.baseUrl, VREDACT_TOKEN: TOKEN });

describe.concurrent('jobs list: a listing of zone-less times among zoned and epoch ones', () => {
  const made = JOBS.map(([id]) => id);

  for (const limit of [[], ['--limit', '2'], ['--all']]) {
    test(`rows in the order the jobs were made ${limit.join(' ') || '(default limit)'}`, async () => {
      const server = await startMixedService();
      try {
        const lines = await runCli(['jobs', 'list', ...limit], { env: envFor(server) });
        expect(lines.exitCode, String(lines.stderr)).toBe(0);
        const ids = String(lines.stdout)
          .trimEnd()
          .split('\n')
          .map((line) => line.split('\t')[0]);
        expect(ids).toEqual(limit[0] === '--limit' ? made.slice(0, 2) : made);
      } finally {
        await server.close();
      }
    });
  }

  test('--json: the same order, each time as the service wrote it', async () => {
    const server = await startMixedService();
    try {
      const json = await runCli(['jobs', 'list', '--json'], { env: envFor(server) });
      expect(json.exitCode, String(json.stderr)).toBe(0);
      const jobs = JSON.parse(String(json.stdout)) as Array<{ job_id: string; created_at: string }>;
      expect(jobs.map((one) => one.job_id)).toEqual(made);
      expect(jobs.find((one) => one.job_id === 'local-1')?.created_at).toMatch(
        /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$/,
      );
      const limited = await runCli(['jobs', 'list', '--json', '--limit', '3'], { env: envFor(server) });
      expect(
        (JSON.parse(String(limited.stdout)) as Array<{ job_id: string }>).map((one) => one.job_id),
      ).toEqual(made.slice(0, 3));
    } finally {
      await server.close();
    }
  });
});
