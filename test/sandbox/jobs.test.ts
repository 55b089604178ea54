import { describe, expect, test } from 'vitest';
import { call, contentOf, OTHER_TOKEN, startTestSandbox, TOKEN, useCleanup } from '../helpers/sandbox-api.js';

useCleanup();

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
