/**
 * Big answers: 200,000 jobs (about 22 MB of JSON) list whole, through `jobs list --all` and the crash
 * recovery's look-up alike (both read the list as a stream). `jobs list` keeps only the jobs it shows,
 * the look-up only the recent ones it reads, and `jobs content` prints items as they come: all run in
 * a heap far too small to hold the listing (that is the outcome asserted: holding it would crash the
 * child). The peak memory is measured in the README.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { isolatedEnv, runCli, tempDirPerTest } from '../helpers/cli.js';
import { jsonLines } from '../helpers/e2e.js';
import { makeWav } from '../helpers/mp3.js';
import { sendJson, startScriptedServer } from '../helpers/scripted-server.js';
import { expectFileBytes } from '../helpers/same-bytes.js';

const TOKEN = 'vr_biglist_0123456789abcdef';
const JOBS = 200_000;
const dir = tempDirPerTest('vredact-hostile-big-');
/** A heap in which 200,000 jobs (or 150,000 content items) held at once do not fit. */
const SMALL_HEAP = { NODE_OPTIONS: '--max-old-space-size=32' };
const START = Date.parse('2026-01-01T00:00:00Z');

const jobId = (i: number) => `${String(i).padStart(8, '0')}-5c1b-4aa6-9c0f-0b1f2e3d4c5b`;

/**
 * `{"jobs":[…]}` with `count` jobs, about 110 bytes each: job i created i seconds after the start,
 * listed oldest first, or in the order `at` gives (a permutation of 0…count-1); `amid`, some more jobs
 * listed halfway.
 */
function bigJobList(
  count: number,
  token: string,
  at: (i: number) => number = (i) => i,
  amid: readonly object[] = [],
): Buffer {
  const parts: string[] = [];
  for (let i = 0; i < count; i++) {
    const n = at(i);
    if (i === count >> 1) parts.push(...amid.map((job) => JSON.stringify(job)));
    parts.push(
      `{"job_id":"${jobId(n)}","token":"${token}","created_at":"${new Date(START + n * 1000).toISOString()}"}`,
    );
  }
  return Buffer.from(`{"jobs":[${parts.join(',')}]}`);
}

/** `{"jobContent":[…]}` with `count` items named f0.wav, f1.wav, … */
function bigContent(count: number): Buffer {
  const parts: string[] = [];
  for (let i = 0; i < count; i++) {
    parts.push(
      `{"id":${i},"job_id":"job-1","file_name":"f${i}.wav","audio_duration":75,"created_at":"2026-01-01T00:00:00Z"}`,
    );
  }
  return Buffer.from(`{"jobContent":[${parts.join(',')}]}`);
}

async function serving(body: Buffer) {
  return startScriptedServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': body.length });
    res.end(body);
  });
}

describe('a list of 200,000 jobs', () => {
  test('jobs list --all prints every job, newest first', async () => {
    const body = bigJobList(JOBS, TOKEN);
    expect(body.length).toBeGreaterThan(20 * 1024 * 1024);
    const server = await serving(body);
    try {
      const run = await runCli(['jobs', 'list', '--all'], {
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

  test('jobs list keeps only the newest 30 (--limit): in a heap too small for the list, in order; --json keeps all', async () => {
    // Listed in a scattered order: the newest are found wherever they come.
    const body = bigJobList(JOBS, TOKEN, (i) => (i * 7919) % JOBS);
    const server = await serving(body);
    try {
      const env = isolatedEnv(dir.path, {
        VREDACT_BASE_URL: server.baseUrl,
        VREDACT_TOKEN: TOKEN,
        ...SMALL_HEAP,
      });
      const run = await runCli(['jobs', 'list'], { env });
      expect(run.exitCode, String(run.stderr)).toBe(0);
      const ids = String(run.stdout)
        .trimEnd()
        .split('\n')
        .map((line) => line.split('\t')[0]);
      expect(ids).toEqual(Array.from({ length: 30 }, (_, i) => jobId(JOBS - 1 - i)));
      expect(String(run.stderr)).toContain(
        'showing the newest 30 of 200,000 jobs; --limit <n> or --all for more',
      );

      // --json is the whole listing unless --limit is given: scripts were promised every job.
      const all = await runCli(['jobs', 'list', '--json'], { env: { ...env, NODE_OPTIONS: '' } });
      expect(all.exitCode, String(all.stderr)).toBe(0);
      expect((JSON.parse(String(all.stdout)) as unknown[]).length).toBe(JOBS);
      expect(String(all.stderr)).not.toContain('showing the newest');

      const json = await runCli(['jobs', 'list', '--json', '--limit', '3', '-q'], { env });
      expect(json.exitCode, String(json.stderr)).toBe(0);
      const jobs = JSON.parse(String(json.stdout)) as { job_id: string }[];
      expect(jobs.map((job) => job.job_id)).toEqual([jobId(JOBS - 1), jobId(JOBS - 2), jobId(JOBS - 3)]);
      expect(String(json.stderr)).toBe('');
    } finally {
      await server.close();
    }
  }, 120_000);

  test('jobs list --limit takes a whole number from 1 to 1,000,000, and not with --all', async () => {
    const env = isolatedEnv(dir.path, { VREDACT_BASE_URL: 'http://127.0.0.1:9', VREDACT_TOKEN: TOKEN });
    for (const given of ['0', '-1', '2.5', 'many', '1000001']) {
      const run = await runCli(['jobs', 'list', '--limit', given], { env });
      expect(run.exitCode, given).toBe(2);
      expect(String(run.stderr)).toContain('--limit must be a whole number from 1 to 1000000');
    }
    const both = await runCli(['jobs', 'list', '--limit', '5', '--all'], { env });
    expect(both.exitCode).toBe(2);
  });

  test('jobs content prints 150,000 items as they come, in a pipe and as JSON, in a heap too small for them', async () => {
    const ITEMS = 150_000;
    const server = await serving(bigContent(ITEMS));
    try {
      const env = isolatedEnv(dir.path, {
        VREDACT_BASE_URL: server.baseUrl,
        VREDACT_TOKEN: TOKEN,
        ...SMALL_HEAP,
      });
      const plain = await runCli(['jobs', 'content', 'job-1'], { env });
      expect(plain.exitCode, String(plain.stderr)).toBe(0);
      const lines = String(plain.stdout).trimEnd().split('\n');
      expect(lines).toHaveLength(ITEMS);
      expect(lines[0]).toBe('0\tf0.wav\t1:15\t2026-01-01 00:00:00');
      expect(lines[ITEMS - 1]).toBe(`${ITEMS - 1}\tf${ITEMS - 1}.wav\t1:15\t2026-01-01 00:00:00`);

      const json = await runCli(['jobs', 'content', 'job-1', '--json'], { env });
      expect(json.exitCode, String(json.stderr)).toBe(0);
      const items = JSON.parse(String(json.stdout)) as { id: string; file_name: string }[];
      expect(items).toHaveLength(ITEMS);
      expect(items[ITEMS - 1]).toMatchObject({ id: String(ITEMS - 1), file_name: `f${ITEMS - 1}.wav` });
    } finally {
      await server.close();
    }
  }, 120_000);

  test('the look-up of an interrupted upload finds its job among them, in a heap too small for the list', async () => {
    const FOUND = 'job-found';
    const OTHER = 'job-other';
    const uploadNames: string[] = [];
    const result = makeWav(1, 16000);
    let listing: Buffer | undefined;
    const server = await startScriptedServer((req, res, body) => {
      const url = req.url ?? '';
      if (req.method === 'POST' && url === '/api/speech-to-speech-biometric-redaction') {
        uploadNames.push(/filename="([^"]+)"/.exec(body.toString('latin1'))?.[1] ?? '');
        // The first run's upload: its fate unknown, so the journal keeps it `uploading`.
        return sendJson(res, 502, { error: 502, message: 'bad gateway' });
      }
      if (url === '/api/jobs' && listing) {
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': listing.length });
        return void res.end(listing);
      }
      const upload = uploadNames[0] ?? 'none.wav';
      const now = new Date().toISOString();
      if (url === `/api/jobs/${FOUND}/content`) {
        return sendJson(res, 200, {
          jobContent: [
            { id: 1, job_id: FOUND, file_name: upload, audio_duration: 1, created_at: now },
            { id: 2, job_id: FOUND, file_name: `${upload.slice(0, -4)}_redacted.wav`, audio_duration: 1 },
          ],
        });
      }
      if (url === `/api/jobs/${OTHER}/content`) {
        return sendJson(res, 200, {
          jobContent: [{ id: 1, job_id: OTHER, file_name: 'other.wav', audio_duration: 1, created_at: now }],
        });
      }
      if (url === `/api/jobs/${FOUND}/files/download-url`) {
        return sendJson(res, 200, { signedUrl: `${server.baseUrl}/files/result.wav` });
      }
      if (url === '/files/result.wav') {
        res.writeHead(200, { 'content-type': 'audio/wav', 'content-length': result.length });
        return void res.end(result);
      }
      sendJson(res, 404, { error: 404, message: 'no route' });
    });
    try {
      await mkdir(join(dir.path, 'in'));
      await writeFile(join(dir.path, 'in', 'a.wav'), makeWav(1, 16000));
      const env = isolatedEnv(join(dir.path, 'cfg'), {
        VREDACT_BASE_URL: server.baseUrl,
        VREDACT_TOKEN: TOKEN,
      });
      const first = await runCli(['redact', 'in', '-o', 'out', '--max-retries', '0'], { env, cwd: dir.path });
      expect(first.exitCode, String(first.stderr)).toBe(1);
      expect(uploadNames).toHaveLength(1);
      // Two jobs made since the upload began, amid 200,000 older ones.
      const recent = new Date().toISOString();
      listing = bigJobList(JOBS, TOKEN, undefined, [
        { job_id: OTHER, token: TOKEN, created_at: recent },
        { job_id: FOUND, token: TOKEN, created_at: recent },
      ]);
      const before = server.received.length;

      const rerun = await runCli(['redact', 'in', '-o', 'out', '--json'], {
        env: { ...env, ...SMALL_HEAP },
        cwd: dir.path,
      });
      expect(rerun.exitCode, String(rerun.stderr)).toBe(0);
      expect(jsonLines(rerun.stdout)[0]).toMatchObject({ input: 'in/a.wav', status: 'done', jobId: FOUND });
      expect(uploadNames).toHaveLength(1); // never sent again
      await expectFileBytes(join(dir.path, 'out', 'a.wav'), result);
      // One listing, and only the two recent jobs read (the one found again as it is collected).
      const urls = server.received.slice(before).map((request) => request.url);
      expect(urls.filter((url) => url === '/api/jobs')).toHaveLength(1);
      expect(new Set(urls.filter((url) => url.endsWith('/content')))).toEqual(
        new Set([`/api/jobs/${OTHER}/content`, `/api/jobs/${FOUND}/content`]),
      );
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
