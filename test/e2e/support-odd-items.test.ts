/**
 * A job's items whose file name is no name (missing, null, a number, an object) or whose id is no
 * whole number, through the built binary: `jobs content` shows each as far as it can, and `download`
 * fails just those, fetching the others. Jobs of a listing with no id vredact can use are left out of
 * `jobs list`, with one warning.
 */
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { isolatedEnv, REPO_ROOT, runCli, tempDirPerTest } from '../helpers/cli.js';
import { jsonLines } from '../helpers/e2e.js';
import { startJobServer } from '../helpers/job-server.js';
import { makeWav } from '../helpers/mp3.js';
import {
  type ScriptedServer,
  sendJson,
  sendJsonText,
  startScriptedServer,
} from '../helpers/scripted-server.js';

const TOKEN = 'vr_oddity_0123456789abcdef';
const LINK = /\/files\/download-url$/;
const dir = tempDirPerTest('vredact-odd-items-');

const envFor = (server: ScriptedServer) =>
  isolatedEnv(join(dir.path, '.config'), { VREDACT_BASE_URL: server.baseUrl, VREDACT_TOKEN: TOKEN });

// Written as text: `1.5` and a name past any number's digits stay as the service wrote them.
const JOB_CONTENT = `{"jobContent": [
  {"id": 1, "file_name": "a.wav", "audio_duration": 0.1},
  {"id": 2, "audio_duration": 0.1, "created_at": "\\u001b[31mred"},
  {"id": 3, "file_name": null},
  {"id": 4, "file_name": 123456789012345678901234},
  {"id": 5, "file_name": {"name": "f.wav"}},
  {"id": 1.5, "file_name": "e.wav", "audio_duration": 0.1}
]}`;

const oddJob = () => startJobServer((res) => sendJsonText(res, 200, JOB_CONTENT));

describe('a job with items that have no usable name or a fractional id', () => {
  test('jobs content shows every item as far as it can, escaped, in a pipe and as JSON, exit 0', async () => {
    const server = await oddJob();
    try {
      const plain = await runCli(['jobs', 'content', 'job1'], { env: envFor(server) });
      expect(plain.exitCode, String(plain.stderr)).toBe(0);
      expect(String(plain.stdout).split('\n')).toEqual([
        '1\ta.wav\t0:00\t',
        '2\t\t0:00\t\\x1b[31mred',
        '3\t\t\t',
        '4\t123456789012345678901234\t\t',
        '5\t\t\t',
        '1.5\te.wav\t0:00\t',
      ]);
      const json = await runCli(['jobs', 'content', 'job1', '--json'], { env: envFor(server) });
      expect(json.exitCode, String(json.stderr)).toBe(0);
      const items = JSON.parse(String(json.stdout)) as Array<{ id: string; file_name: unknown }>;
      expect(items.map((item) => [item.id, item.file_name])).toEqual([
        ['1', 'a.wav'],
        ['2', null],
        ['3', null],
        ['4', Number('123456789012345678901234')],
        ['5', null],
        ['1.5', 'e.wav'],
      ]);
    } finally {
      await server.close();
    }
  });

  test('download saves the named files and fails each nameless item with one line, unasked for, exit 1', async () => {
    const server = await oddJob();
    try {
      const out = join(dir.path, 'out');
      const run = await runCli(['download', 'job1', '-o', out], { env: envFor(server) });
      expect(run.exitCode, String(run.stderr)).toBe(1);
      expect((await readdir(out)).sort()).toEqual(['a.wav', 'e.wav']);
      const links = server.received.filter((r) => LINK.test(r.url));
      expect(links).toHaveLength(2);
      const stderr = String(run.stderr).split('\n');
      const noName =
        "it cannot be asked for without a usable name; report the listing to the service's operators";
      expect(stderr).toEqual(
        expect.arrayContaining([
          `error: item 2 of the job (id 2): the service listed it without a file name; ${noName}`,
          `error: item 3 of the job (id 3): the service listed it without a file name; ${noName}`,
          `error: item 4 of the job (id 4): the service listed its file name as a number (123456789012345678901234); ${noName}`,
          `error: item 5 of the job (id 5): the service listed it without a file name; ${noName}`,
          '2 downloaded, 0 skipped, 4 failed',
        ]),
      );
      const json = await runCli(['download', 'job1', '-o', out, '--json'], { env: envFor(server) });
      expect(json.exitCode).toBe(1);
      const outcomes = JSON.parse(String(json.stdout)) as Array<{ fileName: string; status: string }>;
      expect(outcomes.map((o) => [o.fileName, o.status]).sort()).toEqual([
        ['', 'failed'],
        ['', 'failed'],
        ['', 'failed'],
        ['', 'failed'],
        ['a.wav', 'skipped'],
        ['e.wav', 'skipped'],
      ]);
    } finally {
      await server.close();
    }
  });
});

describe('a listing of jobs, some with no id vredact can use', () => {
  // Written as text: `1.5` and an id past a JavaScript number's digits stay as the service wrote them.
  const JOBS = `{"jobs": [
    {"job_id": "job-new", "token": "vr_other_0123456789", "created_at": "2026-03-01T00:00:00Z"},
    {"token": "vr_other_0123456789", "created_at": "2026-03-02T00:00:00Z"},
    {"job_id": {"a": 1}, "created_at": "2026-03-03T00:00:00Z"},
    {"job_id": 1.5},
    {"job_id": ""},
    {"job_id": "\\u001b[2J/x"},
    null,
    {"job_id": 12345678901234567891, "token": 5, "created_at": "2026-01-01T00:00:00Z"}
  ]}`;
  const WARNING =
    "warning: listing jobs: left out 6 job(s) whose id cannot be used (the first is item 2: job_id is missing); report the listing to the service's operators";

  test('jobs list shows the others, in a pipe and as JSON, with one warning naming the count, exit 0', async () => {
    const server = await startScriptedServer((_req, res) => sendJsonText(res, 200, JOBS));
    try {
      const plain = await runCli(['jobs', 'list'], { env: envFor(server) });
      expect(plain.exitCode, String(plain.stderr)).toBe(0);
      expect(String(plain.stdout).split('\n')).toEqual([
        'job-new\t2026-03-01 00:00:00\tvr_…6789',
        '12345678901234567891\t2026-01-01 00:00:00\t',
      ]);
      expect(String(plain.stderr).trimEnd().split('\n')).toEqual([WARNING]);
      const json = await runCli(['jobs', 'list', '--json'], { env: envFor(server) });
      expect(json.exitCode, String(json.stderr)).toBe(0);
      const jobs = JSON.parse(String(json.stdout)) as Array<{ job_id: string; token: string | null }>;
      expect(jobs.map((job) => [job.job_id, job.token])).toEqual([
        ['job-new', 'vr_…6789'],
        ['12345678901234567891', null],
      ]);
      expect(String(json.stderr).trimEnd().split('\n')).toEqual([WARNING]);
    } finally {
      await server.close();
    }
  });

  test('thousands of them are one warning line, whatever the flags', async () => {
    const odd = Array.from({ length: 5000 }, (_, i) => ({ created_at: `${i}` }));
    const server = await startScriptedServer((_req, res) =>
      sendJson(res, 200, { jobs: [...odd, { job_id: 'job-1' }] }),
    );
    try {
      const run = await runCli(['jobs', 'list', '-q'], { env: envFor(server) });
      expect(run.exitCode, String(run.stderr)).toBe(0);
      expect(String(run.stdout)).toBe('job-1\t\t');
      expect(String(run.stderr).trimEnd().split('\n')).toEqual([
        "warning: listing jobs: left out 5,000 job(s) whose id cannot be used (the first is item 1: job_id is missing); report the listing to the service's operators",
      ]);
    } finally {
      await server.close();
    }
  });
});

describe('jobs as jobs list shows them', () => {
  test('a token or a time the service did not give is shown empty and is null in --json, never an empty string made up', async () => {
    // The interface marks a job's token and created_at required; a service may still leave them
    // out. --json printed "" for them, a value the service never gave, where jobs content gives null.
    const server = await startScriptedServer((_req, res) =>
      sendJsonText(
        res,
        200,
        `{"jobs": [
          {"job_id": "j1", "token": "vr_other_0123456789", "created_at": "2026-03-01T00:00:00Z"},
          {"job_id": "j2"},
          {"job_id": "j3", "token": null, "created_at": null},
          {"job_id": "j4", "token": 5, "created_at": {"a": 1}, "note": "kept"},
          {"job_id": "j5", "token": "", "created_at": ""}
        ]}`,
      ),
    );
    try {
      const plain = await runCli(['jobs', 'list'], { env: envFor(server) });
      expect(plain.exitCode, String(plain.stderr)).toBe(0);
      expect(
        String(plain.stdout)
          .split('\n')
          .filter((line) => line !== '')
          .sort(),
      ).toEqual(['j1\t2026-03-01 00:00:00\tvr_…6789', 'j2\t\t', 'j3\t\t', 'j4\t\t', 'j5\t\t']);
      const json = await runCli(['jobs', 'list', '--json'], { env: envFor(server) });
      expect(json.exitCode, String(json.stderr)).toBe(0);
      const jobs = JSON.parse(String(json.stdout)) as Array<{ job_id: string }>;
      expect(jobs.sort((a, b) => a.job_id.localeCompare(b.job_id))).toEqual([
        { job_id: 'j1', token: 'vr_…6789', created_at: '2026-03-01T00:00:00Z' },
        { job_id: 'j2', token: null, created_at: null },
        { job_id: 'j3', token: null, created_at: null },
        { job_id: 'j4', token: null, created_at: null, note: 'kept' },
        { job_id: 'j5', token: null, created_at: null },
      ]);
    } finally {
      await server.close();
    }
  });
});

describe("a job's items as jobs content shows them", () => {
  test('--json fills a missing or empty job_id with the job asked for, never an empty id; one the service gave is kept', async () => {
    const server = await startJobServer((res) =>
      sendJson(res, 200, {
        jobContent: [
          { id: '1', file_name: 'a.wav' },
          { id: '2', job_id: '', file_name: 'b.wav' },
          { id: '3', job_id: 'job8', file_name: 'c.wav' },
        ],
      }),
    );
    try {
      const json = await runCli(['jobs', 'content', 'job7', '--json'], { env: envFor(server) });
      expect(json.exitCode, String(json.stderr)).toBe(0);
      const items = JSON.parse(String(json.stdout)) as Array<{ id: string; job_id: string }>;
      expect(items.map((item) => [item.id, item.job_id])).toEqual([
        ['1', 'job7'],
        ['2', 'job7'],
        ['3', 'job8'],
      ]);
    } finally {
      await server.close();
    }
  });

  test('a field the service did not give is shown empty and is null in --json, never an empty string made up', async () => {
    // The interface requires none of an item's fields. An id or a time missing (or null, or an
    // object) came out of --json as "", a value the service never gave, beside a missing file name
    // and duration that came out as null.
    const server = await startJobServer((res) =>
      sendJsonText(
        res,
        200,
        `{"jobContent": [
          {"job_id": "job7", "file_name": "a.wav"},
          {"id": null, "file_name": "b.wav", "created_at": null, "audio_duration": null},
          {"id": {"n": 3}, "created_at": true},
          {"id": 4, "file_name": "d.wav", "audio_duration": 61, "created_at": "2026-03-01T00:00:00Z", "note": "kept"}
        ]}`,
      ),
    );
    try {
      const plain = await runCli(['jobs', 'content', 'job7'], { env: envFor(server) });
      expect(plain.exitCode, String(plain.stderr)).toBe(0);
      expect(String(plain.stdout).split('\n')).toEqual([
        '\ta.wav\t\t',
        '\tb.wav\t\t',
        '\t\t\t',
        '4\td.wav\t1:01\t2026-03-01 00:00:00',
      ]);
      const json = await runCli(['jobs', 'content', 'job7', '--json'], { env: envFor(server) });
      expect(json.exitCode, String(json.stderr)).toBe(0);
      expect(JSON.parse(String(json.stdout))).toEqual([
        { id: null, job_id: 'job7', file_name: 'a.wav', audio_duration: null, created_at: null },
        { id: null, job_id: 'job7', file_name: 'b.wav', audio_duration: null, created_at: null },
        { id: null, job_id: 'job7', file_name: null, audio_duration: null, created_at: null },
        {
          id: '4',
          job_id: 'job7',
          file_name: 'd.wav',
          audio_duration: 61,
          created_at: '2026-03-01T00:00:00Z',
          note: 'kept',
        },
      ]);
    } finally {
      await server.close();
    }
  });

  test('a recording of an hour or more shows as h:mm:ss, as the README says', async () => {
    const server = await startJobServer((res) =>
      sendJson(res, 200, {
        jobContent: [
          { id: '1', file_name: 'short.wav', audio_duration: 65 },
          { id: '2', file_name: 'long.wav', audio_duration: 3725 },
        ],
      }),
    );
    try {
      const plain = await runCli(['jobs', 'content', 'job1'], { env: envFor(server) });
      expect(plain.exitCode, String(plain.stderr)).toBe(0);
      expect(String(plain.stdout).split('\n')).toEqual(['1\tshort.wav\t1:05\t', '2\tlong.wav\t1:02:05\t']);
      const readme = await readFile(join(REPO_ROOT, 'README.md'), 'utf8');
      expect(readme).toContain(
        "| `vredact jobs content <jobId>` | a job's files (id, file name, duration `m:ss`, `h:mm:ss` from an hour, created) |",
      );
    } finally {
      await server.close();
    }
  });
});

describe('a job listing with elements that are no item at all (a number, null, text, a list)', () => {
  // The files after the odd elements are the job's too: before, the first odd element failed the
  // listing, `jobs content` printed nothing and `download` never asked for c.wav.
  const CONTENT = `{"jobContent": [
    {"id": 1, "file_name": "a.wav", "audio_duration": 0.1},
    7,
    null,
    "x",
    [],
    {"id": 6, "file_name": "c.wav", "audio_duration": 0.1}
  ]}`;
  const WARNING =
    "warning: reading job job1: left out 4 item(s) that are no file (the first is item 2: it is a number, not an object); report the listing to the service's operators";

  test('jobs content lists the items around them, in a pipe and as JSON, with one warning, exit 0', async () => {
    const server = await startJobServer((res) => sendJsonText(res, 200, CONTENT));
    try {
      const plain = await runCli(['jobs', 'content', 'job1'], { env: envFor(server) });
      expect(plain.exitCode, String(plain.stderr)).toBe(0);
      expect(String(plain.stdout).split('\n')).toEqual(['1\ta.wav\t0:00\t', '6\tc.wav\t0:00\t']);
      expect(String(plain.stderr).trimEnd().split('\n')).toEqual([WARNING]);
      const json = await runCli(['jobs', 'content', 'job1', '--json'], { env: envFor(server) });
      expect(json.exitCode, String(json.stderr)).toBe(0);
      const items = JSON.parse(String(json.stdout)) as Array<{ id: string; file_name: string }>;
      expect(items.map((item) => [item.id, item.file_name])).toEqual([
        ['1', 'a.wav'],
        ['6', 'c.wav'],
      ]);
      expect(String(json.stderr).trimEnd().split('\n')).toEqual([WARNING]);
    } finally {
      await server.close();
    }
  });

  test('download fetches every file, the one after them too, and fails each element by its place, exit 1', async () => {
    const server = await startJobServer((res) => sendJsonText(res, 200, CONTENT));
    try {
      const out = join(dir.path, 'out');
      const run = await runCli(['download', 'job1', '-o', out], { env: envFor(server) });
      expect(run.exitCode, String(run.stderr)).toBe(1);
      expect((await readdir(out)).sort()).toEqual(['a.wav', 'c.wav']);
      expect(server.received.filter((r) => LINK.test(r.url))).toHaveLength(2);
      const fetched = server.received.filter((r) => r.url.startsWith('/files/')).map((r) => r.url);
      expect(fetched.sort()).toEqual(['/files/a.wav', '/files/c.wav']);
      const failed = (place: number, kind: string) =>
        `error: item ${place} of the job: the service listed no file there (it is ${kind}, not an object); it cannot be asked for without a usable name; report the listing to the service's operators`;
      const stderr = String(run.stderr).trimEnd().split('\n');
      expect(stderr.sort()).toEqual(
        [
          failed(2, 'a number'),
          failed(3, 'null'),
          failed(4, 'text'),
          failed(5, 'a list'),
          '2 downloaded, 0 skipped, 4 failed',
        ].sort(),
      );
      const json = await runCli(['download', 'job1', '-o', out, '--json'], { env: envFor(server) });
      expect(json.exitCode).toBe(1);
      const outcomes = JSON.parse(String(json.stdout)) as Array<{ fileName: string; status: string }>;
      expect(outcomes.map((o) => [o.fileName, o.status]).sort()).toEqual([
        ['', 'failed'],
        ['', 'failed'],
        ['', 'failed'],
        ['', 'failed'],
        ['a.wav', 'skipped'],
        ['c.wav', 'skipped'],
      ]);
    } finally {
      await server.close();
    }
  });
});

describe('redact polling a job whose listing holds an element that is no item', () => {
  test('warns once for the job, not at each poll; the result is fetched when it comes', async () => {
    const CONTENT_PATH = '/api/jobs/job-7/content';
    const wav = makeWav(2);
    let polls = 0;
    const server: ScriptedServer = await startScriptedServer((req, res) => {
      const url = req.url ?? '';
      if (req.method === 'POST' && url === '/api/speech-to-speech-biometric-redaction')
        return sendJsonText(res, 202, '{"id": "job-7"}');
      if (req.method === 'GET' && url === CONTENT_PATH) {
        // The result is listed from the third poll on; the number 7 at every one.
        const result = ++polls >= 3 ? ', {"id": 2, "file_name": "result.wav", "audio_duration": 2}' : '';
        return sendJsonText(res, 200, `{"jobContent": [7${result}]}`);
      }
      if (req.method === 'POST' && url === '/api/jobs/job-7/files/download-url')
        return sendJson(res, 200, { signedUrl: `${server.baseUrl}/files/result.wav` });
      if (req.method === 'GET' && url === '/files/result.wav') {
        res.writeHead(200, { 'content-type': 'audio/wav', 'content-length': wav.length });
        return void res.end(wav);
      }
      sendJson(res, 404, { error: 404, message: 'no such job' });
    });
    try {
      await writeFile(join(dir.path, 'call.wav'), makeWav(2));
      const run = await runCli(['redact', 'call.wav', '-o', 'out', '--json'], {
        env: envFor(server),
        cwd: dir.path,
      });
      expect(run.exitCode, String(run.stderr)).toBe(0);
      expect(jsonLines(run.stdout)[0]).toMatchObject({ status: 'done', jobId: 'job-7' });
      expect(server.received.filter((r) => r.url === CONTENT_PATH).length).toBeGreaterThanOrEqual(3);
      const warnings = String(run.stderr)
        .split('\n')
        .filter((line) => line.includes('left out'));
      expect(warnings).toEqual([
        "warning: reading job job-7: left out 1 item(s) that are no file (item 1: it is a number, not an object); report the listing to the service's operators",
      ]);
    } finally {
      await server.close();
    }
  }, 60_000);
});
