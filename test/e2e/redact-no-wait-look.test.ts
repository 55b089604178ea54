/**
 * `redact --no-wait` polls no job, yet looks at the jobs it submits, one at a time, until the service
 * has confirmed one: a host that names a job for every upload (`200 {"data":{"id":…}}`) and knows
 * none of them is stopped after 3 such looks, with at most C + 2 files sent at `-c C`; against the
 * service, the run makes one look and submits every file.
 */
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { isolatedEnv, runCli, tempDirPerTest } from '../helpers/cli.js';
import { jsonLines, setup } from '../helpers/e2e.js';
import { latestEvents } from '../helpers/journal.js';
import { sendJson, startScriptedServer } from '../helpers/scripted-server.js';
import { speechInputs } from '../helpers/speech-files.js';

const TOKEN = 'vr_nowaitlook_0123456789abcdef';
const STREAK = 3;
const UPLOAD = '/api/speech-to-speech-biometric-redaction';
const dir = tempDirPerTest('vredact-no-wait-look-');
const STOPPED =
  /^error: the batch stopped: 3 uploads in a row were answered by something that is not the Voice Redaction Service \(a job id whose job answered 404 Not Found from 127\.0\.0\.1:\d+\): nothing more was sent$/m;
const NOT_SENT =
  'not finished: the batch stopped: uploads were answered by something that is not the Voice Redaction Service (not sent)';

describe('--no-wait looks at the first job of a run', () => {
  test.each([1, 4])(
    'at -c %i, a host naming a job for every upload and knowing none is stopped after C + 2 uploads at most',
    async (concurrency) => {
      const files = 30;
      await speechInputs(dir.path, files);
      const server = await startScriptedServer((req, res) => {
        if (req.method === 'POST') sendJson(res, 200, { data: { id: randomUUID() } });
        else sendJson(res, 404, { errors: [{ status: '404', title: 'Not Found' }] });
      });
      const out = join(dir.path, 'out');
      const env = isolatedEnv(join(dir.path, '.config'), {
        VREDACT_BASE_URL: server.baseUrl,
        VREDACT_TOKEN: TOKEN,
      });
      let run, requests;
      try {
        run = await runCli(
          ['redact', 'in', '-o', out, '--no-wait', '--json', '-c', String(concurrency), '--no-progress'],
          { env, cwd: dir.path },
        );
        requests = server.received.map((request) => `${request.method} ${request.url}`);
      } finally {
        await server.close();
      }
      const uploads = requests.filter((request) => request === `POST ${UPLOAD}`).length;
      const looks = requests.filter((request) => request.startsWith('GET /api/jobs/'));
      expect(run.exitCode).toBe(1);
      expect(String(run.stderr)).toMatch(STOPPED);
      expect(String(run.stderr)).toMatch(
        /^hint: check that the base URL points at the Voice Redaction Service/m,
      );
      expect(uploads).toBeGreaterThanOrEqual(STREAK);
      expect(uploads).toBeLessThanOrEqual(concurrency + STREAK - 1);
      // One look at a time, each at a job not yet confirmed: three, the third stopping the batch.
      expect(looks).toHaveLength(STREAK);

      const lines = jsonLines(run.stdout).filter((line) => 'input' in line);
      expect(lines).toHaveLength(files);
      const submitted = lines.filter((line) => typeof line.jobId === 'string');
      const notSent = lines.filter((line) => line.reason === NOT_SENT);
      expect(submitted).toHaveLength(uploads);
      expect(notSent).toHaveLength(files - uploads);
      expect([...submitted, ...notSent].map((line) => line.status)).toEqual(Array(files).fill('pending'));
      const notFound = submitted.filter((line) =>
        /which its first look did not find \(reading job .*404 Not Found\): check that the base URL points at the service/.test(
          String(line.reason),
        ),
      );
      expect(notFound).toHaveLength(STREAK);

      // Each file sent stays submitted (a later run collects it or is told it does not exist); no
      // other was sent, so none is journaled as anything but not sent.
      const latest = Object.values(await latestEvents(out));
      expect(latest.filter((event) => event === 'submitted')).toHaveLength(uploads);
      expect(latest.filter((event) => event !== 'submitted' && event !== 'withdrawn')).toEqual([]);
      const status = await runCli(['status', '-o', out, '--json'], { env, cwd: dir.path });
      const counts = (JSON.parse(String(status.stdout)) as { counts: Record<string, number> }).counts;
      expect(counts).toMatchObject({ done: 0, pending: uploads, failed: 0, uploading: 0 });
    },
  );

  test('against the service: every file submitted, exit 0, and one job looked at', async () => {
    const e2e = await setup(['--sync-limit', '0']);
    try {
      const files = 12;
      await speechInputs(e2e.dir, files);
      const run = await e2e.redact(['in', '-o', 'out', '--no-wait', '--json', '-c', '4', '--no-progress']);
      expect(run.exitCode).toBe(0);
      const lines = jsonLines(run.stdout).filter((line) => 'input' in line);
      expect(lines.map((line) => line.status)).toEqual(Array(files).fill('pending'));
      for (const line of lines)
        expect(line.reason).toMatch(/^submitted as job \S+; a later run collects it$/);
      const api = (await e2e.sandbox.requests()).filter((request) => request.listener === 'api');
      expect(api.filter((request) => request.method === 'POST' && request.path === UPLOAD)).toHaveLength(
        files,
      );
      const looks = api.filter(
        (request) => request.method === 'GET' && request.path.startsWith('/api/jobs/'),
      );
      expect(looks).toHaveLength(1);
      expect(looks[0]?.status).toBe(200);
      expect(lines.map((line) => `/api/jobs/${String(line.jobId)}/content`)).toContain(looks[0]?.path);
      expect(Object.values(await latestEvents(join(e2e.dir, 'out')))).toEqual(Array(files).fill('submitted'));
    } finally {
      await e2e.cleanup();
    }
  });
});
