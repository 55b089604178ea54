import { describe, expect, test } from 'vitest';
import { startSandbox } from '../../src/sandbox/index.js';
import {
  call,
  contentOf,
  fixture,
  OTHER_TOKEN,
  redact,
  startTestSandbox,
  TOKEN,
  useCleanup,
} from '../helpers/sandbox-api.js';

useCleanup();

const ENDPOINTS: Array<['GET' | 'POST', string]> = [
  ['GET', '/api/jobs'],
  ['POST', '/api/jobs'],
  ['GET', '/api/jobs/some-job/content'],
  ['POST', '/api/jobs/some-job/files/download-url'],
  ['POST', '/api/speech-to-speech-biometric-redaction'],
];

describe('authentication', () => {
  test.each(ENDPOINTS)(
    '%s %s: 401 without a header, 403 with an unknown token, both with an error body',
    async (method, path) => {
      const sandbox = await startTestSandbox();
      const missing = await call(sandbox.baseUrl, method, path, { token: null });
      expect(missing.status).toBe(401);
      expect(missing.headers['content-type']).toMatch(/^application\/json/);
      expect(missing.json()).toEqual({ error: 401, message: expect.any(String) });

      const unknown = await call(sandbox.baseUrl, method, path, { token: 'vr_not_a_known_token' });
      expect(unknown.status).toBe(403);
      expect(unknown.json()).toEqual({ error: 403, message: expect.any(String) });

      const notBearer = await call(sandbox.baseUrl, method, path, { token: `raw:Basic ${TOKEN}` });
      expect(notBearer.status).toBe(403);
    },
  );

  test('a rejected upload is not read: the redaction endpoint answers 401 with the file still on its way', async () => {
    const sandbox = await startTestSandbox();
    const answer = await redact(sandbox.baseUrl, fixture('speech-16bit.wav'), { token: null });
    expect(answer.status).toBe(401);
    expect(answer.json()).toMatchObject({ error: 401 });
  });

  test('the bearer scheme is case-insensitive', async () => {
    const sandbox = await startTestSandbox();
    const answer = await call(sandbox.baseUrl, 'GET', '/api/jobs', { token: `raw:bearer ${TOKEN}` });
    expect(answer.status).toBe(200);
  });

  test('without --token, one vr_sandbox_ token is generated and accepted', async () => {
    const sandbox = await startSandbox({ port: 0 });
    try {
      expect(sandbox.tokens).toHaveLength(1);
      const [token] = sandbox.tokens;
      expect(token).toMatch(/^vr_sandbox_[0-9a-f]{32}$/);
      expect((await call(sandbox.baseUrl, 'GET', '/api/jobs', { token })).status).toBe(200);
    } finally {
      await sandbox.close();
    }
  });

  test('a non-loopback host is refused', async () => {
    await expect(startSandbox({ port: 0, host: '0.0.0.0' })).rejects.toThrow(/loopback/);
    await expect(startSandbox({ port: 0, host: '192.168.1.10' })).rejects.toThrow(/loopback/);
  });

  test('an unknown path is a 404 with an error body; a wrong method a 405', async () => {
    const sandbox = await startTestSandbox();
    const unknown = await call(sandbox.baseUrl, 'GET', '/api/nothing-here');
    expect(unknown.status).toBe(404);
    expect(unknown.json()).toMatchObject({ error: 404 });
    const wrong = await call(sandbox.baseUrl, 'DELETE', '/api/jobs');
    expect(wrong.status).toBe(405);
    expect(wrong.json()).toMatchObject({ error: 405 });
  });
});

describe('jobs', () => {
  test('POST /api/jobs creates a job (201) that GET /api/jobs then lists with its token and date', async () => {
    const sandbox = await startTestSandbox();
    expect((await call(sandbox.baseUrl, 'GET', '/api/jobs')).json()).toEqual({ jobs: [] });

    const created = await call(sandbox.baseUrl, 'POST', '/api/jobs');
    expect(created.status).toBe(201);
    const { job_id } = created.json() as { job_id: string };
    expect(job_id).toEqual(expect.any(String));

    const list = await call(sandbox.baseUrl, 'GET', '/api/jobs');
    expect(list.status).toBe(200);
    const { jobs } = list.json() as { jobs: Array<{ job_id: string; token: string; created_at: string }> };
    expect(jobs).toEqual([{ job_id, token: TOKEN, created_at: expect.any(String) }]);
    expect(Number.isNaN(Date.parse(jobs[0]!.created_at))).toBe(false);

    expect(await contentOf(sandbox.baseUrl, job_id)).toEqual([]);
  });

  test("a token sees only its own jobs; another token's job is a 404 that reveals nothing", async () => {
    const sandbox = await startTestSandbox();
    const { job_id } = (await call(sandbox.baseUrl, 'POST', '/api/jobs')).json() as { job_id: string };

    const list = (await call(sandbox.baseUrl, 'GET', '/api/jobs', { token: OTHER_TOKEN })).json();
    expect(list).toEqual({ jobs: [] });

    const foreign = await call(sandbox.baseUrl, 'GET', `/api/jobs/${job_id}/content`, { token: OTHER_TOKEN });
    const unknown = await call(sandbox.baseUrl, 'GET', '/api/jobs/no-such-job/content', {
      token: OTHER_TOKEN,
    });
    expect(foreign.status).toBe(404);
    expect(foreign.json()).toEqual(unknown.json());
    expect(foreign.text).not.toContain(TOKEN);

    const url = await call(sandbox.baseUrl, 'POST', `/api/jobs/${job_id}/files/download-url`, {
      token: OTHER_TOKEN,
      json: { fileName: 'anything.wav' },
    });
    expect(url.status).toBe(404);
    expect(url.json()).toMatchObject({ error: 404 });
  });

  test('download-url: 400 without a fileName or with a body that is not JSON, 404 for an unknown file or job', async () => {
    const sandbox = await startTestSandbox();
    const { job_id } = (await call(sandbox.baseUrl, 'POST', '/api/jobs')).json() as { job_id: string };
    const path = `/api/jobs/${job_id}/files/download-url`;

    for (const json of [{}, { fileName: '' }, { fileName: 42 }]) {
      const answer = await call(sandbox.baseUrl, 'POST', path, { json });
      expect(answer.status).toBe(400);
      expect(answer.json()).toMatchObject({ error: 400, message: expect.stringContaining('fileName') });
    }
    const notJson = await call(sandbox.baseUrl, 'POST', path, {
      body: '{oops',
      headers: { 'content-type': 'application/json' },
    });
    expect(notJson.status).toBe(400);

    const noFile = await call(sandbox.baseUrl, 'POST', path, { json: { fileName: 'missing.wav' } });
    expect(noFile.status).toBe(404);
    expect(noFile.json()).toMatchObject({ error: 404 });

    const noJob = await call(sandbox.baseUrl, 'POST', '/api/jobs/nope/files/download-url', {
      json: { fileName: 'a.wav' },
    });
    expect(noJob.status).toBe(404);
  });
});
