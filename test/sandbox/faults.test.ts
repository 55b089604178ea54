import { describe, expect, test } from 'vitest';
import type { RequestRecord } from '../../src/sandbox/index.js';
import { type Answer, call, fixture, redact, startTestSandbox, useCleanup } from '../helpers/sandbox-api.js';

useCleanup();

const control = (base: string, method: 'GET' | 'POST' | 'DELETE', path: string, json?: unknown) =>
  call(base, method, `/__sandbox/${path}`, { token: null, json });

describe('scripted faults', () => {
  test('queued answers replace the next API answers, in order, then service resumes', async () => {
    const sandbox = await startTestSandbox();
    const queued = await control(sandbox.baseUrl, 'POST', 'faults', {
      next: [{ status: 503 }, { status: 502, html: true }, { status: 429, retryAfter: 2 }],
    });
    expect(queued.status).toBe(200);

    const first = await call(sandbox.baseUrl, 'GET', '/api/jobs');
    expect(first.status).toBe(503);
    expect(first.headers['retry-after']).toBe('0');
    expect(first.json()).toEqual({ error: 503, message: expect.any(String) });

    const second = await call(sandbox.baseUrl, 'POST', '/api/jobs');
    expect(second.status).toBe(502);
    expect(second.headers['content-type']).toMatch(/^text\/html/);
    expect(second.text).toBe('<html><body><h1>502 Bad Gateway</h1></body></html>');

    const third = await call(sandbox.baseUrl, 'GET', '/api/jobs');
    expect(third.status).toBe(429);
    expect(third.headers['retry-after']).toBe('2');

    expect((await call(sandbox.baseUrl, 'GET', '/api/jobs')).status).toBe(200);
    const statuses = ((await control(sandbox.baseUrl, 'GET', 'requests')).json() as RequestRecord[]).map(
      (r) => r.status,
    );
    expect(statuses).toEqual([503, 502, 429, 200]);
  });

  test('a fault comes before auth, and an upload it refuses is not read', async () => {
    const sandbox = await startTestSandbox();
    await control(sandbox.baseUrl, 'POST', 'faults', { next: [{ status: 503 }] });
    const refused = await redact(sandbox.baseUrl, fixture('speech-16bit.wav'), { token: null });
    expect(refused.status).toBe(503);
    expect((await control(sandbox.baseUrl, 'GET', 'stats')).json()).toMatchObject({
      uploads: 0,
      faultsInjected: 1,
    });
    expect((await redact(sandbox.baseUrl, fixture('speech-16bit.wav'))).status).toBe(200);
  });

  test('a fault can target a path, the file listener, or cut the connection', async () => {
    const sandbox = await startTestSandbox();
    await control(sandbox.baseUrl, 'POST', 'faults', {
      next: [
        { status: 500, path: '/api/jobs/' },
        { reset: true, path: '/api/jobs' },
      ],
    });
    // The first fault waits for a path under /api/jobs/; the second takes this request.
    await expect(call(sandbox.baseUrl, 'GET', '/api/jobs')).rejects.toThrow();
    expect((await call(sandbox.baseUrl, 'GET', '/api/jobs/x/content')).status).toBe(500);
    expect((await control(sandbox.baseUrl, 'GET', 'faults')).json()).toEqual({ next: [] });

    await control(sandbox.baseUrl, 'POST', 'faults', { next: [{ status: 503, listener: 'files' }] });
    expect((await call(sandbox.baseUrl, 'GET', '/api/jobs')).status).toBe(200);
    const files = await call(sandbox.filesUrl, 'GET', '/files/a/b?expires=1&sig=0', { token: null });
    expect(files.status).toBe(503);
  });

  test('an invalid fault list is a 400; DELETE clears the queue', async () => {
    const sandbox = await startTestSandbox();
    expect((await control(sandbox.baseUrl, 'POST', 'faults', { next: [{ status: 200 }] })).status).toBe(400);
    expect((await control(sandbox.baseUrl, 'POST', 'faults', { nope: [] })).status).toBe(400);
    await control(sandbox.baseUrl, 'POST', 'faults', { next: [{ status: 503 }] });
    await control(sandbox.baseUrl, 'DELETE', 'faults');
    expect((await call(sandbox.baseUrl, 'GET', '/api/jobs')).status).toBe(200);
  });

  test('control endpoints need no token and are not recorded', async () => {
    const sandbox = await startTestSandbox();
    expect((await control(sandbox.baseUrl, 'GET', 'stats')).status).toBe(200);
    expect((await control(sandbox.baseUrl, 'GET', 'info')).json()).toMatchObject({
      baseUrl: sandbox.baseUrl,
      filesUrl: sandbox.filesUrl,
    });
    expect((await control(sandbox.baseUrl, 'GET', 'requests')).json()).toEqual([]);
    expect((await control(sandbox.baseUrl, 'GET', 'nothing')).status).toBe(404);
  });
});

describe('random faults and latency', () => {
  async function statuses(seed: number, n: number): Promise<number[]> {
    const sandbox = await startTestSandbox({ failRate: 0.5, seed });
    const out: number[] = [];
    for (let i = 0; i < n; i++) out.push((await call(sandbox.baseUrl, 'GET', '/api/jobs')).status);
    return out;
  }

  test('--fail-rate answers a share of requests with 503 + Retry-After: 0, the same ones for the same seed', async () => {
    const a = await statuses(42, 40);
    const b = await statuses(42, 40);
    expect(a).toEqual(b);
    expect(new Set(a)).toEqual(new Set([200, 503]));
  });

  test('--fail-rate 1 refuses everything, uploads unread', async () => {
    const sandbox = await startTestSandbox({ failRate: 1 });
    const answers: Answer[] = [
      await call(sandbox.baseUrl, 'GET', '/api/jobs'),
      await redact(sandbox.baseUrl, fixture('speech-16bit.wav')),
    ];
    for (const answer of answers) {
      expect(answer.status).toBe(503);
      expect(answer.headers['retry-after']).toBe('0');
      expect(answer.json()).toMatchObject({ error: 503 });
    }
    expect((await control(sandbox.baseUrl, 'GET', 'stats')).json()).toMatchObject({ uploads: 0 });
  });

  test('--latency still gives the normal answers', async () => {
    const sandbox = await startTestSandbox({ latencyMs: 20 });
    expect((await call(sandbox.baseUrl, 'GET', '/api/jobs')).status).toBe(200);
    expect((await redact(sandbox.baseUrl, fixture('speech-16bit.wav'))).status).toBe(200);
  });
});
