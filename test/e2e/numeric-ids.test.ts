/**
 * Ids the service sends as JSON numbers past 2^53 are read as the digits it wrote: a JavaScript
 * number reads 12345678901234567891 as 12345678901234567000, another job. A hostile stand-in serves
 * the job only under its exact id; what it received is asserted. A number that is no id (1.5, -3,
 * 1e3) fails its file with the reason, and no request is built from it.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { isolatedEnv, runCli, tempDirPerTest } from '../helpers/cli.js';
import { jsonLines } from '../helpers/e2e.js';
import { makeWav } from '../helpers/mp3.js';
import {
  type ScriptedServer,
  sendJson,
  sendJsonText,
  startScriptedServer,
} from '../helpers/scripted-server.js';

const TOKEN = 'vr_test_numeric_ids_0123';
const REDACT = '/api/speech-to-speech-biometric-redaction';
const BIG = '12345678901234567891';
/** What JSON.parse makes of BIG. */
const ROUNDED = String(Number(BIG));
const ITEM_IDS = ['98765432109876543211', '98765432109876543212'];
const dir = tempDirPerTest('vredact-numeric-ids-');

const env = (server: ScriptedServer) =>
  isolatedEnv(join(dir.path, '.config'), { VREDACT_BASE_URL: server.baseUrl, VREDACT_TOKEN: TOKEN });

const listing = `{"jobs":[{"job_id":${BIG},"token":"t","created_at":"2026-11-21T05:14:03Z"}]}`;
const content = `{"jobContent":[
  {"id":${ITEM_IDS[0]},"job_id":${BIG},"file_name":"call.wav","audio_duration":10},
  {"id":${ITEM_IDS[1]},"job_id":${BIG},"file_name":"call.redacted.wav","audio_duration":10.0}]}`;

/** The service of one job, `BIG`, named in the redaction answer by `answer`; it answers only under BIG. */
async function service(answer: string): Promise<ScriptedServer> {
  const server: ScriptedServer = await startScriptedServer((req, res, body) => {
    const url = req.url ?? '';
    if (req.method === 'POST' && url === REDACT) return sendJsonText(res, 202, answer);
    if (req.method === 'GET' && url === '/api/jobs') return sendJsonText(res, 200, listing);
    if (req.method === 'GET' && url === `/api/jobs/${BIG}/content`) return sendJsonText(res, 200, content);
    if (req.method === 'POST' && url === `/api/jobs/${BIG}/files/download-url`) {
      const { fileName } = JSON.parse(body.toString('utf8')) as { fileName: string };
      return sendJson(res, 200, {
        signedUrl: `${server.baseUrl}/files/${BIG}/${encodeURIComponent(fileName)}`,
      });
    }
    if (req.method === 'GET' && url === `/files/${BIG}/call.redacted.wav`) {
      const wav = makeWav(10);
      res.writeHead(200, { 'content-type': 'audio/wav', 'content-length': wav.length });
      return void res.end(wav);
    }
    sendJson(res, 404, { error: 404, message: 'no such job' });
  });
  return server;
}

describe('redact, a job named by a number past 2^53', () => {
  test('the exact job is polled and fetched, the file done, its id journaled and in the manifest', async () => {
    const server = await service(`{"id": ${BIG}}`);
    try {
      await writeFile(join(dir.path, 'call.wav'), makeWav(10));
      const run = await runCli(['redact', 'call.wav', '-o', 'out', '--json'], {
        env: env(server),
        cwd: dir.path,
      });
      expect(run.exitCode).toBe(0);
      expect(jsonLines(run.stdout)[0]).toMatchObject({ status: 'done', jobId: BIG });
      expect(Buffer.compare(await readFile(join(dir.path, 'out', 'call.wav')), makeWav(10))).toBe(0);
      const paths = server.received.map((r) => r.url);
      expect(paths).toContain(`/api/jobs/${BIG}/content`);
      expect(paths).toContain(`/api/jobs/${BIG}/files/download-url`);
      expect(paths.filter((path) => path.includes(ROUNDED))).toEqual([]);
      const journal = await readFile(join(dir.path, 'out', '.vredact', 'journal.jsonl'), 'utf8');
      expect(journal).toContain(`"jobId":"${BIG}"`);
      expect(journal).not.toContain(ROUNDED);
      const manifest = await runCli(['status', '-o', 'out', '--manifest'], {
        env: env(server),
        cwd: dir.path,
      });
      expect(manifest.exitCode).toBe(0);
      expect(String(manifest.stdout)).toContain(`,${BIG},`);
    } finally {
      await server.close();
    }
  });

  test.each([
    ['{"id": 1.5}', 'id', '1.5', 'it is not a whole number'],
    ['{"job_id": -3}', 'job_id', '-3', 'it is negative'],
    ['{"jobId": 1e3}', 'jobId', '1e3', 'it is written with an exponent'],
  ])('%s: the file fails saying why, and no request names that job', async (answer, field, shown, why) => {
    const server = await service(answer);
    try {
      await writeFile(join(dir.path, 'call.wav'), makeWav(10));
      const run = await runCli(['redact', 'call.wav', '-o', 'out', '--json', '--max-retries', '0'], {
        env: env(server),
        cwd: dir.path,
      });
      expect(run.exitCode).toBe(1);
      const [outcome] = jsonLines(run.stdout);
      expect(outcome).toMatchObject({ status: 'failed' });
      // The upload was taken: the reason goes on to say the next run looks for its job.
      expect(String(outcome?.reason)).toContain(
        `redacting call.wav: the service gave the job id as the number ${shown} in \`${field}\`, which cannot be used (${why});`,
      );
      expect(server.received.filter((r) => r.url.startsWith('/api/jobs/'))).toEqual([]);
    } finally {
      await server.close();
    }
  });
});

describe('jobs, ids as numbers past 2^53', () => {
  test('jobs list (--json and TSV), jobs content and jobs create give the digits the service wrote', async () => {
    const server = await service(`{"id": ${BIG}}`);
    const created = await startScriptedServer((_req, res) => sendJsonText(res, 201, `{"job_id": ${BIG}}`));
    try {
      const listed = await runCli(['jobs', 'list', '--json'], { env: env(server) });
      expect(listed.exitCode).toBe(0);
      expect(JSON.parse(String(listed.stdout))).toEqual([expect.objectContaining({ job_id: BIG })]);
      const tsv = await runCli(['jobs', 'list'], { env: env(server) });
      expect(String(tsv.stdout).split('\t')[0]).toBe(BIG);

      const items = await runCli(['jobs', 'content', BIG, '--json'], { env: env(server) });
      expect(items.exitCode).toBe(0);
      const parsed = JSON.parse(String(items.stdout)) as Array<Record<string, unknown>>;
      expect(parsed.map((item) => [item.id, item.job_id])).toEqual(ITEM_IDS.map((id) => [id, BIG]));

      const made = await runCli(['jobs', 'create', '--json'], { env: env(created) });
      expect(made.exitCode).toBe(0);
      expect(JSON.parse(String(made.stdout))).toEqual({ job_id: BIG });
    } finally {
      await server.close();
      await created.close();
    }
  });

  test('jobs create: a new job id given as 2.5 is refused naming the field, exit 1, nothing printed', async () => {
    const server = await startScriptedServer((_req, res) => sendJsonText(res, 201, '{"job_id": 2.5}'));
    try {
      const run = await runCli(['jobs', 'create'], { env: env(server) });
      expect(run.exitCode).toBe(1);
      expect(String(run.stdout)).toBe('');
      expect(String(run.stderr)).toContain(
        'creating a job: unexpected answer from the service (job_id: the number 2.5 cannot be an id: it is not a whole number)',
      );
    } finally {
      await server.close();
    }
  });
});
