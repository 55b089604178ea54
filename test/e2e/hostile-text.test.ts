/**
 * A hostile service: it echoes the Authorization header in every message, puts escape sequences in
 * names and ids, and hands out ids that would change a request's path. No token, no raw ESC or CR
 * reaches stdout, stderr or any file; no request leaves /api/jobs/<id>/….
 */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { copyFile, mkdir } from 'node:fs/promises';
import { describe, expect, test } from 'vitest';
import { FIXTURES, isolatedEnv, runCli, tempDirPerTest } from '../helpers/cli.js';
import { sendJson, startScriptedServer } from '../helpers/scripted-server.js';

const TOKEN = 'vr_hostile_0123456789abcdef';
const ESC = '\u001b';
const NASTY = `${ESC}[2J${ESC}]0;owned\u0007\rX\u009b31m`;

const dir = tempDirPerTest('vredact-hostile-text-');

/** Every file under `root`, recursively, with its bytes. */
async function allFiles(root: string): Promise<{ path: string; text: string }[]> {
  const out: { path: string; text: string }[] = [];
  for (const entry of await readdir(root, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile()) continue;
    const path = join(entry.parentPath, entry.name);
    out.push({ path, text: await readFile(path, 'latin1') });
  }
  return out;
}

function expectClean(...texts: string[]): void {
  for (const text of texts) {
    expect(text).not.toContain(TOKEN);
    expect(text).not.toContain(ESC);
    expect(text).not.toContain('\r');
    expect(text).not.toContain('\u009b');
  }
}

/** Echoes the request's Authorization header back in everything it says. */
async function echoingServer() {
  return startScriptedServer((req, res) => {
    const echo = `${req.headers.authorization ?? ''} ${NASTY}`;
    const url = req.url ?? '';
    if (url === '/api/jobs' && req.method === 'GET') {
      return sendJson(res, 200, {
        jobs: [
          { job_id: 'job-1', token: TOKEN, created_at: echo },
          { job_id: `job-3${NASTY}`, token: TOKEN, created_at: echo },
          { job_id: '..', token: TOKEN, created_at: '2026-11-21T10:00:00Z' },
          { job_id: 'job-2', token: TOKEN, created_at: '2026-11-21T10:00:00Z', note: echo },
        ],
      });
    }
    if (url.startsWith('/api/jobs/job-2/content')) {
      return sendJson(res, 200, {
        jobContent: [
          { id: 1, job_id: 'job-2', file_name: `a${NASTY}${TOKEN}.wav`, audio_duration: 3, created_at: echo },
        ],
      });
    }
    return sendJson(res, 500, { error: 500, message: `database error for ${echo} ${'x'.repeat(2000)}` });
  });
}

describe('a service that echoes the token and sends escape sequences', () => {
  test('jobs list, jobs content and their --json: no token, no raw control character; unsafe ids left out', async () => {
    const server = await echoingServer();
    try {
      const env = isolatedEnv(dir.path, { VREDACT_BASE_URL: server.baseUrl, VREDACT_TOKEN: TOKEN });
      const list = await runCli(['jobs', 'list'], { env });
      const listJson = await runCli(['jobs', 'list', '--json'], { env });
      const content = await runCli(['jobs', 'content', 'job-2'], { env });
      const contentJson = await runCli(['jobs', 'content', 'job-2', '--json'], { env });
      for (const run of [list, listJson, content, contentJson]) {
        expect(run.exitCode).toBe(0);
        expectClean(String(run.stdout), String(run.stderr));
      }
      expect(String(list.stdout).split('\n').filter(Boolean)).toHaveLength(2);
      expect(String(list.stderr)).toContain('left out 2 job(s)');
      const jobs = JSON.parse(String(listJson.stdout)) as { job_id: string; token: string }[];
      expect(jobs.map((job) => job.token)).toEqual(['vr_…cdef', 'vr_…cdef']);
      expect(jobs.map((job) => job.job_id).sort()).toEqual(['job-1', 'job-2']);
      const items = JSON.parse(String(contentJson.stdout)) as { file_name: string }[];
      expect(items[0]?.file_name).toBe(`a${NASTY}vr_…cdef.wav`);
    } finally {
      await server.close();
    }
  });

  test('an error message that echoes the token: scrubbed, escaped and cut, on stderr and in the journal', async () => {
    const server = await echoingServer();
    try {
      const env = isolatedEnv(dir.path, { VREDACT_BASE_URL: server.baseUrl, VREDACT_TOKEN: TOKEN });
      const failed = await runCli(['jobs', 'content', 'job-9', '--max-retries', '0'], { env });
      expect(failed.exitCode).toBe(1);
      expectClean(String(failed.stdout), String(failed.stderr));
      expect(String(failed.stderr)).toContain('database error for Bearer vr_…cdef');
      expect(String(failed.stderr)).toMatch(/more characters\)/);

      const inputs = join(dir.path, 'in');
      await mkdir(inputs);
      await copyFile(join(FIXTURES, 'speech-16bit.wav'), join(inputs, 'a.wav'));
      const out = join(dir.path, 'out');
      const redact = await runCli(['redact', inputs, '-o', out, '--max-retries', '0'], { env });
      const redactJson = await runCli(['redact', inputs, '-o', out, '--max-retries', '0', '--json'], { env });
      expect(redact.exitCode).toBe(1);
      for (const run of [redact, redactJson]) expectClean(String(run.stdout), String(run.stderr));
      for (const file of await allFiles(out)) {
        expect(file.text, file.path).not.toContain(TOKEN);
        expect(file.text, file.path).not.toContain(ESC);
      }
    } finally {
      await server.close();
    }
  });
});

describe('a service that echoes part of the token', () => {
  /** Every run of 10 characters of the token, any case: none may be shown. */
  function expectNoPart(text: string): void {
    for (let i = 0; i + 10 <= TOKEN.length; i++)
      expect(text.toLowerCase()).not.toContain(TOKEN.slice(i, i + 10).toLowerCase());
  }

  test('cut short or upper-cased in a refusal: masked for jobs list and for login, nothing stored', async () => {
    const server = await startScriptedServer((req, res) => {
      const sent = (req.headers.authorization ?? '').slice('Bearer '.length);
      sendJson(res, 403, {
        error: 403,
        message: `token ${sent.slice(0, 16)}... is not valid (${sent.toUpperCase()})`,
      });
    });
    try {
      const env = isolatedEnv(dir.path, { VREDACT_BASE_URL: server.baseUrl, VREDACT_TOKEN: TOKEN });
      const list = await runCli(['jobs', 'list', '--verbose'], { env });
      const loginEnv = isolatedEnv(dir.path, { VREDACT_BASE_URL: server.baseUrl });
      const login = await runCli(['login', '--token-stdin', '--verbose'], { env: loginEnv, input: TOKEN });
      for (const run of [list, login]) {
        expect(run.exitCode).toBe(3);
        expect(String(run.stderr)).toContain('token vr_…cdef... is not valid (vr_…cdef)');
        expectNoPart(`${String(run.stdout)}${String(run.stderr)}`);
      }
      expect(await readdir(dir.path)).not.toContain('config.json');
    } finally {
      await server.close();
    }
  });
});

describe('identifiers that would change a request path', () => {
  test.each(['..', '.', 'a/../../x', '%2e%2e', `x${ESC}[2J`])(
    "the user's job id %j is refused before any request (exit 2)",
    async (id) => {
      const server = await startScriptedServer((_req, res) => sendJson(res, 200, { jobContent: [] }));
      try {
        const env = isolatedEnv(dir.path, { VREDACT_BASE_URL: server.baseUrl, VREDACT_TOKEN: TOKEN });
        const content = await runCli(['jobs', 'content', id], { env });
        const download = await runCli(['download', id, '-o', dir.path], { env });
        for (const run of [content, download]) {
          expect(run.exitCode).toBe(2);
          expect(String(run.stderr)).toContain('cannot be used');
          expectClean(String(run.stderr));
        }
        expect(server.received).toEqual([]);
      } finally {
        await server.close();
      }
    },
  );

  test('a redaction answer with the job id ".." is never polled', async () => {
    const server = await startScriptedServer((req, res) => {
      if (req.url === '/api/speech-to-speech-biometric-redaction')
        return sendJson(res, 202, { job_id: '..' });
      return sendJson(res, 200, { jobs: [] });
    });
    try {
      const env = isolatedEnv(dir.path, { VREDACT_BASE_URL: server.baseUrl, VREDACT_TOKEN: TOKEN });
      const inputs = join(dir.path, 'in');
      await mkdir(inputs);
      await copyFile(join(FIXTURES, 'speech-16bit.wav'), join(inputs, 'a.wav'));
      const run = await runCli(['redact', inputs, '-o', join(dir.path, 'out'), '--max-retries', '0'], {
        env,
      });
      expect(run.exitCode).toBe(1);
      expect(String(run.stdout) + String(run.stderr)).toContain('cannot be used');
      for (const request of server.received) {
        expect(['/api/speech-to-speech-biometric-redaction', '/api/jobs']).toContain(request.url);
      }
    } finally {
      await server.close();
    }
  });
});
