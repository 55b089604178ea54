/**
 * A job's result listed by the service but not yet at its download link: object storage behind a
 * service can answer 404 for a while after the service lists the item (its row written before the
 * object lands, a replica or CDN not yet filled). Against a stand-in whose link answers 404 to the
 * first GETs of each object: the run asks for a new link at the poll's backoff and ends done, each
 * file sent once. A link that never stops answering 404 fails its file after the bounded tries,
 * counted over `--no-wait` runs (one look each) as within a waiting run.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isolatedEnv, runCli, tempDirPerTest } from '../helpers/cli.js';
import { jsonLines, listFiles } from '../helpers/e2e.js';
import { changedWav, layoutWav, uploadedWav } from '../helpers/result-wav.js';
import { expectFileBytes } from '../helpers/same-bytes.js';
import { type ScriptedServer, sendJson, startScriptedServer } from '../helpers/scripted-server.js';

const dir = tempDirPerTest('vredact-e2e-link-404-');
const REDACT = '/api/speech-to-speech-biometric-redaction';
const NAMES = ['a.wav', 'b.wav'];
/** The link's tries in a run, the README's figure. */
const LINK_TRIES = 3;

const recording = (fill: number) => layoutWav({ sampleRate: 16_000, channels: 1, bits: 16 }, 2, fill);

/**
 * `a.wav` in the test's folder, a `redact a.wav -o out --json` runner against `baseUrl` (the run's
 * exit code and the line of `a.wav`) and `status -o out --json`'s line of it.
 */
async function oneRecordingRuns(baseUrl: string) {
  await writeFile(join(dir.path, 'a.wav'), recording(3));
  const env = isolatedEnv(join(dir.path, '.config'), {
    VREDACT_BASE_URL: baseUrl,
    VREDACT_TOKEN: 'vr_test_link_404',
  });
  const redact = async (...flags: string[]) => {
    const result = await runCli(['redact', 'a.wav', '-o', 'out', '--json', ...flags], { env, cwd: dir.path });
    return {
      exitCode: result.exitCode,
      outcome: jsonLines(result.stdout).find((line) => line.input === 'a.wav'),
    };
  };
  const status = async () => {
    const result = await runCli(['status', '-o', 'out', '--json'], { env, cwd: dir.path });
    expect(result.exitCode, String(result.stderr)).toBe(0);
    return (JSON.parse(String(result.stdout)) as { files: Array<Record<string, unknown>> }).files[0];
  };
  return { redact, status };
}

/**
 * A service whose every upload becomes a job listing its result at once, and whose link answers 404
 * to the first `missingGets` GETs of each object (Infinity: always), then the upload changed by a byte.
 */
async function startLaggingStorage(missingGets: number) {
  const uploaded: Buffer[] = [];
  const gets = new Map<string, number>();
  const server: ScriptedServer = await startScriptedServer((req, res, body) => {
    const url = req.url ?? '';
    if (req.method === 'POST' && url === REDACT) {
      uploaded.push(Buffer.from(uploadedWav(body, req.headers['content-type'] ?? '')));
      return sendJson(res, 202, { job_id: `j${uploaded.length}` });
    }
    const content = /^\/api\/jobs\/j(\d+)\/content$/.exec(url);
    if (content) {
      const job_id = `j${content[1]}`;
      const item = (id: number, file_name: string) => ({
        id,
        job_id,
        file_name,
        audio_duration: 2,
        created_at: '2026-11-28T00:00:00Z',
      });
      return sendJson(res, 200, { jobContent: [item(1, 'upload.wav'), item(2, `result_${job_id}.wav`)] });
    }
    const link = /^\/api\/jobs\/j(\d+)\/files\/download-url$/.exec(url);
    if (link) return sendJson(res, 200, { signedUrl: `${server.baseUrl}/objects/${link[1]}?sig=s3cr3t` });
    const object = /^\/objects\/(\d+)\?/.exec(url);
    const bytes = object ? uploaded[Number(object[1]) - 1] : undefined;
    if (object && bytes) {
      const seen = (gets.get(object[1] ?? '') ?? 0) + 1;
      gets.set(object[1] ?? '', seen);
      if (seen <= missingGets) {
        res.writeHead(404, { 'content-type': 'application/xml' });
        return void res.end('<Error><Code>NoSuchKey</Code></Error>');
      }
      const result = changedWav(bytes);
      res.writeHead(200, { 'content-type': 'audio/wav', 'content-length': result.length });
      return void res.end(result);
    }
    if (url === '/api/jobs') return sendJson(res, 200, { jobs: [] });
    sendJson(res, 404, { error: 404, message: 'not here' });
  });
  return {
    server,
    uploads: () => uploaded.length,
    linkGets: () => server.received.filter((r) => r.url.startsWith('/objects/')).length,
  };
}

async function run(server: ScriptedServer) {
  for (const [i, name] of NAMES.entries()) await writeFile(join(dir.path, name), recording(3 + i));
  const env = isolatedEnv(join(dir.path, '.config'), {
    VREDACT_BASE_URL: server.baseUrl,
    VREDACT_TOKEN: 'vr_test_link_404',
  });
  const result = await runCli(['redact', ...NAMES, '-o', 'out', '--json'], { env, cwd: dir.path });
  const lines = jsonLines(result.stdout).filter((line) => typeof line.input === 'string');
  return { result, byInput: Object.fromEntries(lines.map((line) => [line.input as string, line])) };
}

describe('a result listed but not yet at its download link', () => {
  it('is fetched again at the next poll: every file done in one run, each sent once, exit 0', async () => {
    const storage = await startLaggingStorage(2);
    try {
      const { result, byInput } = await run(storage.server);
      expect(result.exitCode).toBe(0);
      for (const name of NAMES) expect(byInput[name]).toMatchObject({ status: 'done' });
      expect(storage.uploads()).toBe(NAMES.length);
      // Two 404s then the result, for each object.
      expect(storage.linkGets()).toBe(NAMES.length * 3);
      // A new link was asked for each try.
      expect(storage.server.received.filter((r) => r.url.endsWith('/download-url'))).toHaveLength(
        NAMES.length * 3,
      );
      const outputs = (await listFiles(join(dir.path, 'out'))).filter((n) => !n.startsWith('.vredact/'));
      expect(outputs).toEqual(NAMES);
      for (const [i, name] of NAMES.entries()) {
        await expectFileBytes(join(dir.path, 'out', name), changedWav(recording(3 + i)));
      }
    } finally {
      await storage.server.close();
    }
  });

  it('that never comes: failed after the bounded tries, saying how many, exit 1', async () => {
    const storage = await startLaggingStorage(Infinity);
    try {
      const { result, byInput } = await run(storage.server);
      expect(result.exitCode).toBe(1);
      for (const name of NAMES) {
        expect(byInput[name]).toMatchObject({
          status: 'failed',
          reason: expect.stringMatching(
            new RegExp(
              `^downloading \\d+: the download link's host 127\\.0\\.0\\.1:\\d+ answered 404 Not Found \\(tried ${LINK_TRIES} times, a new link each time\\)$`,
            ),
          ),
        });
      }
      expect(storage.uploads()).toBe(NAMES.length);
      expect(storage.linkGets()).toBe(NAMES.length * LINK_TRIES);
      expect(String(result.stderr)).not.toContain('s3cr3t');
      const outputs = (await listFiles(join(dir.path, 'out'))).filter((n) => !n.startsWith('.vredact/'));
      expect(outputs).toEqual([]);
    } finally {
      await storage.server.close();
    }
  });

  it('that never comes, looked at by --no-wait runs: the tries count over runs, then failed and sent again', async () => {
    const storage = await startLaggingStorage(Infinity);
    try {
      const { redact, status } = await oneRecordingRuns(storage.server.baseUrl);
      const noWait = () => redact('--no-wait');

      // The first run sends it and does not look (--no-wait): pending, its link not tried yet.
      const sent = await noWait();
      expect(sent.outcome).toMatchObject({ status: 'pending', jobId: 'j1' });
      expect(storage.uploads()).toBe(1);
      expect(storage.linkGets()).toBe(0);

      // Each later run looks once; the tries before the last leave it pending, counted in the journal.
      for (let miss = 1; miss < LINK_TRIES; miss++) {
        const looked = await noWait();
        expect(looked.exitCode).toBe(0);
        expect(looked.outcome).toMatchObject({
          status: 'pending',
          jobId: 'j1',
          reason: expect.stringContaining(
            `no result at its link at ${miss} of ${LINK_TRIES} tries (it may not have reached the link yet): a later run tries again`,
          ),
        });
        expect(storage.linkGets()).toBe(miss);
        expect(await status()).toMatchObject({
          state: 'pending',
          reason: `submitted; no result at its link at ${miss} of ${LINK_TRIES} tries: the next run tries again`,
        });
      }
      const journal = await readFile(join(dir.path, 'out', '.vredact', 'journal.jsonl'), 'utf8');
      expect(jsonLines(journal).at(-1)).toMatchObject({ event: 'submitted', jobId: 'j1', linkMisses: 2 });

      // The last try, in the next run: failed as a waiting run fails it, saying how many tries it had.
      const failed = await noWait();
      expect(failed.exitCode).toBe(1);
      expect(failed.outcome).toMatchObject({
        status: 'failed',
        jobId: 'j1',
        reason: expect.stringMatching(
          new RegExp(
            `^downloading \\d+: the download link's host 127\\.0\\.0\\.1:\\d+ answered 404 Not Found \\(tried ${LINK_TRIES} times, ${LINK_TRIES - 1} of them by earlier runs, a new link each time\\)$`,
          ),
        ),
      });
      expect(storage.linkGets()).toBe(LINK_TRIES);
      expect(storage.uploads()).toBe(1);

      // The next run sends it again, as after a failure in a waiting run.
      const again = await noWait();
      expect(again.outcome).toMatchObject({ status: 'pending', jobId: 'j2' });
      expect(storage.uploads()).toBe(2);
      expect(storage.server.received.filter((r) => r.method === 'POST' && r.url === REDACT)).toHaveLength(2);
    } finally {
      await storage.server.close();
    }
  });

  it('that never comes, met by waiting runs ended by --wait-timeout: their tries are journaled, and a --no-wait run fails it at the third', async () => {
    const storage = await startLaggingStorage(Infinity);
    try {
      const runs = await oneRecordingRuns(storage.server.baseUrl);
      const redact = async (...flags: string[]) => (await runs.redact(...flags)).outcome;
      const journalTail = async () =>
        jsonLines(await readFile(join(dir.path, 'out', '.vredact', 'journal.jsonl'), 'utf8')).at(-1);

      // A wait over before the first poll is done: one try of the link a run, then pending.
      for (let miss = 1; miss < LINK_TRIES; miss++) {
        expect(await redact('--wait-timeout', '1ms')).toMatchObject({ status: 'pending', jobId: 'j1' });
        expect(storage.linkGets()).toBe(miss);
        expect(await journalTail()).toMatchObject({ event: 'submitted', jobId: 'j1', linkMisses: miss });
        expect(await runs.status()).toMatchObject({
          state: 'pending',
          reason: `submitted; no result at its link at ${miss} of ${LINK_TRIES} tries: the next run tries again`,
        });
      }

      expect(await redact('--no-wait')).toMatchObject({
        status: 'failed',
        jobId: 'j1',
        reason: expect.stringContaining(
          `(tried ${LINK_TRIES} times, ${LINK_TRIES - 1} of them by earlier runs, a new link each time)`,
        ),
      });
      expect(storage.linkGets()).toBe(LINK_TRIES);
      expect(storage.uploads()).toBe(1);
    } finally {
      await storage.server.close();
    }
  });
});
