/**
 * Journal lines a run must not take as they stand, against a scripted service that records what it
 * receives: a line of a later format stops `redact` and `status` (exit 2, nothing sent, nothing
 * rewritten), and a `submitted` line whose job id cannot be used is an upload cut short, looked up by
 * its exact upload name, never sent blindly again. Build first: `npm run build`.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isolatedEnv, runCli, tempDir } from '../helpers/cli.js';
import { jsonLines } from '../helpers/e2e.js';
import { makeWav } from '../helpers/mp3.js';
import { type ScriptedServer, sendJson, startScriptedServer } from '../helpers/scripted-server.js';
import { expectFileBytes } from '../helpers/same-bytes.js';

let temp: Awaited<ReturnType<typeof tempDir>>;
let server: ScriptedServer;
/** What the service knows: the upload names it took, and the job it made of the first. */
let uploadNames: string[];
let result: Buffer;
const JOB = 'job-a';
const createdAt = new Date().toISOString();

beforeEach(async () => {
  temp = await tempDir('vredact-journal-format-');
  uploadNames = [];
  server = await startScriptedServer((req, res, body) => {
    const url = req.url ?? '';
    if (req.method === 'POST' && url === '/api/speech-to-speech-biometric-redaction') {
      uploadNames.push(/filename="([^"]+)"/.exec(body.toString('latin1'))?.[1] ?? '');
      // An asynchronous job: its result is collected later.
      return sendJson(res, 202, { job_id: JOB });
    }
    if (url === '/api/jobs')
      return sendJson(res, 200, { jobs: [{ job_id: JOB, token: 't', created_at: createdAt }] });
    if (url === `/api/jobs/${JOB}/content`) {
      const upload = uploadNames[0] ?? 'none.wav';
      return sendJson(res, 200, {
        jobContent: [
          { id: 1, job_id: JOB, file_name: upload, audio_duration: 1, created_at: createdAt },
          {
            id: 2,
            job_id: JOB,
            file_name: `${upload.slice(0, -4)}_redacted.wav`,
            audio_duration: 1,
            created_at: createdAt,
          },
        ],
      });
    }
    if (url === `/api/jobs/${JOB}/files/download-url`) {
      return sendJson(res, 200, { signedUrl: `${server.baseUrl}/files/result.wav` });
    }
    if (url === '/files/result.wav') {
      res.writeHead(200, { 'content-type': 'audio/wav', 'content-length': result.length });
      return void res.end(result);
    }
    res.writeHead(404);
    res.end();
  });
  result = makeWav(1, 16000);
  await mkdir(join(temp.path, 'in'));
  await writeFile(join(temp.path, 'in', 'a.wav'), makeWav(1, 16000));
});

afterEach(async () => {
  await server.close();
  await temp.cleanup();
});

function run(args: string[]) {
  const env = isolatedEnv(join(temp.path, 'cfg'), {
    VREDACT_BASE_URL: server.baseUrl,
    VREDACT_TOKEN: 'vr_test_journal_format',
  });
  return runCli(args, { env, cwd: temp.path });
}

const journalPath = () => join(temp.path, 'out', '.vredact', 'journal.jsonl');

async function journalLines(): Promise<Array<Record<string, unknown>>> {
  return (await readFile(journalPath(), 'utf8'))
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

describe('a journal line written by a newer vredact', () => {
  it('stops redact, its dry run and status: exit 2, the file and line named, nothing sent or rewritten', async () => {
    expect((await run(['redact', 'in', '-o', 'out', '--no-wait'])).exitCode).toBe(0);
    const [uploading] = await journalLines();
    // Years of re-runs (enough lines that a run would compact it), then a line of a later format.
    const history = Array.from({ length: 1100 }, () => JSON.stringify(uploading));
    const newer = JSON.stringify({
      v: 2,
      at: new Date().toISOString(),
      event: 'sealed',
      input: uploading?.input,
    });
    await writeFile(journalPath(), `${[...history, newer, ...history.slice(0, 2)].join('\n')}\n`);
    const before = await readFile(journalPath());
    const requests = server.received.length;

    const reason = `error: line 1101 of the journal ${join(temp.path, 'out', '.vredact', 'journal.jsonl')} was written by a newer vredact (journal format 2; this version reads 1): upgrade vredact to go on`;
    for (const args of [
      ['redact', 'in', '-o', 'out'],
      ['redact', 'in', '-o', 'out', '--dry-run'],
      ['status', '-o', 'out'],
      ['status', '-o', 'out', '--manifest'],
    ]) {
      const refused = await run(args);
      expect(refused.exitCode, args.join(' ')).toBe(2);
      expect(String(refused.stderr).split('\n'), args.join(' ')).toContain(reason);
      expect(String(refused.stdout)).toBe('');
    }
    expect(server.received.length).toBe(requests);
    await expectFileBytes(journalPath(), before);
  });
});

describe('a submitted line whose job id cannot be used', () => {
  it.each([
    ['missing', undefined],
    ['one that would change the request path', '../jobs'],
  ])(
    '(%s): status says its upload is looked up; the run finds its job by upload name and sends nothing',
    async (_, jobId) => {
      const first = await run(['redact', 'in', '-o', 'out', '--no-wait']);
      expect(first.exitCode).toBe(0);
      expect(uploadNames).toHaveLength(1);
      const lines = await journalLines();
      expect(lines.map((line) => line.event)).toEqual(['uploading', 'submitted']);
      // Edited by hand, or damaged: the line no longer says which job to collect.
      const { jobId: _jobId, ...damaged } = lines[1] as Record<string, unknown>;
      if (jobId !== undefined) damaged.jobId = jobId;
      await writeFile(journalPath(), `${JSON.stringify(lines[0])}\n${JSON.stringify(damaged)}\n`);

      const status = await run(['status', '-o', 'out']);
      expect(status.exitCode).toBe(0);
      const [row] = String(status.stdout)
        .split('\n')
        .map((text) => text.split('\t'));
      expect(row?.slice(0, 4)).toEqual([
        'pending',
        join(temp.path, 'in', 'a.wav'),
        'its submitted line names no job id that can be used: the next run looks for its job by its upload name first, then sends it again',
        '',
      ]);

      const rerun = await run(['redact', 'in', '-o', 'out', '--json']);
      expect(rerun.exitCode, String(rerun.stderr)).toBe(0);
      expect(jsonLines(rerun.stdout)[0]).toMatchObject({ input: 'in/a.wav', status: 'done', jobId: JOB });
      // Never sent again: the one upload is the first run's.
      expect(uploadNames).toHaveLength(1);
      expect(server.received.filter((request) => request.url.includes('..'))).toEqual([]);
      await expectFileBytes(join(temp.path, 'out', 'a.wav'), result);
      const after = await journalLines();
      expect(after.slice(2).map((line) => [line.event, line.jobId])).toEqual([
        ['submitted', JOB],
        ['done', JOB],
      ]);
      expect(after[2]).toMatchObject({ reconciled: true, uploadName: uploadNames[0] });
    },
  );
});
