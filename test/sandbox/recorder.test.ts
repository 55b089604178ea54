/** What the recorder keeps of each request: method, path without query, whether a token came, the status. */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { describe, expect, it, vi } from 'vitest';
import { KEPT_REQUESTS, type Listener, Recorder } from '../../src/sandbox/recorder.js';
import { loopbackServers, WAIT } from '../helpers/test-servers.js';

const listen = loopbackServers();

/**
 * A loopback server whose every request is tracked, then handled by `handle` (which may answer,
 * cut the connection, or hold the response open).
 */
async function trackedServer(
  recorder: Recorder,
  listener: Listener,
  handle: (req: IncomingMessage, res: ServerResponse) => void,
): Promise<string> {
  const server = createServer((req, res) => {
    recorder.track(listener, req, res);
    handle(req, res);
  });
  return listen(server);
}

/** Answers with the status named by the path's last segment (`/x/404` → 404). */
function statusFromPath(req: IncomingMessage, res: ServerResponse): void {
  res.writeHead(Number((req.url ?? '').split('?')[0]!.split('/').pop()) || 200);
  res.end('ok');
}

describe('Recorder', () => {
  it('starts with no requests and every counter at zero', () => {
    const recorder = new Recorder();
    expect(recorder.requests()).toEqual([]);
    expect(Object.values(recorder.stats).every((n) => n === 0)).toBe(true);
    expect(Object.keys(recorder.stats).sort()).toEqual(
      [
        'asyncJobs',
        'faultsInjected',
        'filesAuthorizationRefused',
        'processing',
        'syncResults',
        'tooLarge',
        'uploadBytes',
        'uploads',
      ].sort(),
    );
  });

  it('records each request in order, with its listener, method, path and answered status', async () => {
    const recorder = new Recorder();
    const api = await trackedServer(recorder, 'api', statusFromPath);
    const files = await trackedServer(recorder, 'files', statusFromPath);
    expect((await fetch(`${api}/api/jobs/201`, { method: 'POST' })).status).toBe(201);
    expect((await fetch(`${files}/files/abc/404?expires=1&signature=secret`)).status).toBe(404);
    expect((await fetch(`${api}/api/jobs/200`, { method: 'DELETE' })).status).toBe(200);
    expect(recorder.requests()).toEqual([
      { listener: 'api', method: 'POST', path: '/api/jobs/201', hadAuthorization: false, status: 201 },
      { listener: 'files', method: 'GET', path: '/files/abc/404', hadAuthorization: false, status: 404 },
      { listener: 'api', method: 'DELETE', path: '/api/jobs/200', hadAuthorization: false, status: 200 },
    ]);
  });

  it('notes that a token came, never its value, nor the query that carries a signature', async () => {
    const recorder = new Recorder();
    const base = await trackedServer(recorder, 'api', statusFromPath);
    await fetch(`${base}/api/jobs/200?sig=query-secret`, {
      headers: { authorization: 'Bearer vr_secret_token_value' },
    });
    expect(recorder.requests()).toEqual([
      { listener: 'api', method: 'GET', path: '/api/jobs/200', hadAuthorization: true, status: 200 },
    ]);
    const listed = JSON.stringify(recorder.requests());
    expect(listed).not.toContain('vr_secret_token_value');
    expect(listed).not.toContain('query-secret');
  });

  it('gives null while no answer is sent, the status once it is, and 0 for a connection cut without one', async () => {
    const recorder = new Recorder();
    let held: ServerResponse | undefined;
    const base = await trackedServer(recorder, 'api', (req, res) => {
      if (req.url === '/cut') res.socket?.destroy();
      else if (req.url === '/hold') held = res;
      else statusFromPath(req, res);
    });

    const cut = await fetch(`${base}/cut`).then(
      () => 'answered',
      () => 'failed',
    );
    expect(cut).toBe('failed');
    await vi.waitFor(() => expect(recorder.requests()[0]).toMatchObject({ path: '/cut', status: 0 }), WAIT);
    const hold = () => recorder.requests().find((record) => record.path === '/hold');

    const answer = fetch(`${base}/hold`);
    await vi.waitFor(() => expect(held).toBeDefined(), WAIT);
    expect(hold()?.status).toBeNull();
    held!.writeHead(202);
    expect(hold()?.status).toBe(202);
    held!.end();
    expect((await answer).status).toBe(202);
    await vi.waitFor(() => expect(hold()?.status).toBe(202), WAIT);
  });

  it('hands out copies: a caller changing the list changes nothing recorded', async () => {
    const recorder = new Recorder();
    const base = await trackedServer(recorder, 'api', statusFromPath);
    await fetch(`${base}/a/200`);
    const listed = recorder.requests();
    listed[0]!.path = '/changed';
    listed.pop();
    expect(recorder.requests()).toMatchObject([{ path: '/a/200' }]);
  });

  it('clear() forgets the requests but keeps the counters', async () => {
    const recorder = new Recorder();
    const base = await trackedServer(recorder, 'api', statusFromPath);
    await fetch(`${base}/a/200`);
    recorder.stats.uploads = 3;
    recorder.clear();
    expect(recorder.requests()).toEqual([]);
    expect(recorder.stats.uploads).toBe(3);
    await fetch(`${base}/b/204`);
    expect(recorder.requests()).toMatchObject([{ path: '/b/204', status: 204 }]);
  });
});

describe('Recorder, left running', () => {
  it('keeps the latest requests only, however many it has seen', () => {
    const recorder = new Recorder();
    const fakeRes = () =>
      ({ once: () => undefined, headersSent: true, statusCode: 200 }) as unknown as ServerResponse;
    for (let n = 0; n < KEPT_REQUESTS * 3; n++) {
      const req = { method: 'GET', url: `/api/jobs/${n}`, headers: {} } as unknown as IncomingMessage;
      recorder.track('api', req, fakeRes());
    }
    const kept = recorder.requests();
    expect(kept.length).toBeGreaterThanOrEqual(KEPT_REQUESTS);
    expect(kept.length).toBeLessThanOrEqual(KEPT_REQUESTS * 1.5);
    expect(kept.at(-1)?.path).toBe(`/api/jobs/${KEPT_REQUESTS * 3 - 1}`);
  });
});
