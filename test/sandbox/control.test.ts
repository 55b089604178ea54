/** The `/__sandbox/` control endpoints, served by a real loopback server over real collaborators. */
import { createServer } from 'node:http';
import { describe, expect, it, vi } from 'vitest';
import { CONTROL_PREFIX, type ControlDeps, handleControl, holdAnswer } from '../../src/sandbox/control.js';
import { FaultInjector } from '../../src/sandbox/faults.js';
import { Recorder } from '../../src/sandbox/recorder.js';
import { JobStore } from '../../src/sandbox/store.js';
import { tempDirPerTest } from '../helpers/cli.js';
import { loopbackServers, WAIT } from '../helpers/test-servers.js';

const scratch = tempDirPerTest('vredact-sandbox-control-');
const listen = loopbackServers();

/** A control server over fresh collaborators; they are returned so a test can look at them. */
async function controlServer(): Promise<{ base: string; deps: ControlDeps }> {
  const deps: ControlDeps = {
    recorder: new Recorder(),
    faults: new FaultInjector(0, 1),
    store: await JobStore.open(scratch.path, () => {}),
    runtime: { holdAcceptedMs: 0 },
    info: () => ({ apiUrl: 'http://sandbox.invalid', speed: 4 }),
  };
  const base = await listen(createServer((req, res) => void handleControl(req, res, deps)));
  return { base, deps };
}

async function control(
  base: string,
  method: string,
  endpoint: string,
  body?: string,
): Promise<{ status: number; json: unknown }> {
  const response = await fetch(`${base}${CONTROL_PREFIX}${endpoint}`, {
    method,
    ...(body === undefined ? {} : { body, headers: { 'content-type': 'application/json' } }),
  });
  return { status: response.status, json: await response.json() };
}

describe('control endpoints', () => {
  it('list the recorded requests and clear them', async () => {
    const { base, deps } = await controlServer();
    // A request recorded by the API listener, as the sandbox would.
    const api = await listen(
      createServer((req, res) => {
        deps.recorder.track('api', req, res);
        res.writeHead(204).end();
      }),
    );
    await fetch(`${api}/api/jobs?x=1`, { headers: { authorization: 'Bearer t' } });
    expect(await control(base, 'GET', 'requests')).toEqual({
      status: 200,
      json: [{ listener: 'api', method: 'GET', path: '/api/jobs', hadAuthorization: true, status: 204 }],
    });
    expect(await control(base, 'DELETE', 'requests')).toEqual({ status: 200, json: { cleared: true } });
    expect(deps.recorder.requests()).toEqual([]);
    // Control requests themselves are not recorded.
    expect(await control(base, 'GET', 'requests')).toEqual({ status: 200, json: [] });
  });

  it('give the counters with the number of jobs, and the info', async () => {
    const { base, deps } = await controlServer();
    deps.recorder.stats.uploads = 2;
    deps.recorder.stats.uploadBytes = 1234;
    await deps.store.create('token-a');
    await deps.store.create('token-b');
    expect(await control(base, 'GET', 'stats')).toEqual({
      status: 200,
      json: { ...deps.recorder.stats, jobs: 2 },
    });
    expect(await control(base, 'GET', 'info')).toEqual({
      status: 200,
      json: { apiUrl: 'http://sandbox.invalid', speed: 4 },
    });
  });

  it('queue faults with their defaults, list them and empty the queue', async () => {
    const { base, deps } = await controlServer();
    const queued = await control(
      base,
      'POST',
      'faults',
      JSON.stringify({
        next: [{ status: 502, html: true }, { reset: true, listener: 'files', path: '/f' }, {}],
      }),
    );
    expect(queued).toEqual({ status: 200, json: { queued: 3, pending: 3 } });
    expect(await control(base, 'POST', 'faults', '{"next":[{"status":429}]}')).toEqual({
      status: 200,
      json: { queued: 1, pending: 4 },
    });
    expect(await control(base, 'GET', 'faults')).toEqual({
      status: 200,
      json: {
        next: [
          { status: 502, html: true, reset: false, listener: 'api' },
          { status: 503, html: false, reset: true, listener: 'files', path: '/f' },
          { status: 503, html: false, reset: false, listener: 'api' },
          { status: 429, html: false, reset: false, listener: 'api' },
        ],
      },
    });
    // The queue served is the injector's own: the next API request takes the first fault.
    expect(deps.faults.take('api', '/api/jobs')).toMatchObject({ status: 502, html: true });
    expect(await control(base, 'DELETE', 'faults')).toEqual({ status: 200, json: { next: [] } });
    expect(deps.faults.pending()).toEqual([]);
  });

  it('refuse a bad fault list with 400, saying where, and queue nothing', async () => {
    const { base, deps } = await controlServer();
    const outOfRange = await control(base, 'POST', 'faults', '{"next":[{},{"status":200}]}');
    expect(outOfRange.status).toBe(400);
    expect(outOfRange.json).toMatchObject({
      error: 400,
      message: expect.stringMatching(/^invalid fault list at next\.1\.status: /),
    });
    const unknownKey = await control(base, 'POST', 'faults', '{"next":[{"sttaus":500}]}');
    expect(unknownKey.status).toBe(400);
    expect(unknownKey.json).toMatchObject({ message: expect.stringMatching(/^invalid fault list/) });
    // A Retry-After that no HTTP header can carry would only fail the API request that takes it.
    const badHeader = await control(base, 'POST', 'faults', '{"next":[{"retryAfter":"1\\r\\nx-y: z"}]}');
    expect(badHeader.status).toBe(400);
    expect(badHeader.json).toMatchObject({
      message: expect.stringMatching(/^invalid fault list at next\.0\.retryAfter: /),
    });
    const noList = await control(base, 'POST', 'faults', '');
    expect(noList.status).toBe(400);
    const notJson = await control(base, 'POST', 'faults', '{"next":');
    expect(notJson).toEqual({
      status: 400,
      json: { error: 400, message: 'the request body is not valid JSON' },
    });
    expect(deps.faults.pending()).toEqual([]);
  });

  it('read and set the hold of accepted answers, within 0 to 600000 whole ms', async () => {
    const { base, deps } = await controlServer();
    expect(await control(base, 'GET', 'hold-accepted')).toEqual({ status: 200, json: { ms: 0 } });
    expect(await control(base, 'POST', 'hold-accepted', '{"ms":1500}')).toEqual({
      status: 200,
      json: { ms: 1500 },
    });
    expect(deps.runtime.holdAcceptedMs).toBe(1500);
    expect(await control(base, 'POST', 'hold-accepted', '{"ms":600000}')).toEqual({
      status: 200,
      json: { ms: 600000 },
    });
    for (const bad of [
      '{"ms":-1}',
      '{"ms":600001}',
      '{"ms":1.5}',
      '{"ms":"10"}',
      '{"ms":10,"extra":1}',
      '{}',
    ]) {
      const answer = await control(base, 'POST', 'hold-accepted', bad);
      expect(answer.status, bad).toBe(400);
      expect(answer.json, bad).toMatchObject({ error: 400, message: expect.stringMatching(/^invalid hold/) });
    }
    expect(deps.runtime.holdAcceptedMs).toBe(600000);
  });

  it('answer 404 for anything else, naming the route, and still let the client read it', async () => {
    const { base } = await controlServer();
    expect(await control(base, 'GET', 'nothing')).toEqual({
      status: 404,
      json: { error: 404, message: 'no control endpoint GET nothing' },
    });
    // A body sent to an unknown route is read and thrown away, so the answer reaches the client.
    expect(await control(base, 'PUT', 'stats', 'x'.repeat(256 * 1024))).toEqual({
      status: 404,
      json: { error: 404, message: 'no control endpoint PUT stats' },
    });
  });
});

describe('holdAnswer', () => {
  it('returns at once for no hold', async () => {
    const base = await listen(
      createServer((req, res) => {
        void (async () => {
          await holdAnswer(res, 0);
          await holdAnswer(res, -5);
          res.end('answered');
        })();
      }),
    );
    expect(await (await fetch(base)).text()).toBe('answered');
  });

  it('returns at once when the client has already gone', async () => {
    let arrived = false;
    let released = false;
    const base = await listen(
      createServer((req, res) => {
        arrived = true;
        // The hold starts only after the response has closed: it must not wait at all.
        res.once('close', () => {
          void holdAnswer(res, 600_000).then(() => {
            released = true;
          });
        });
      }),
    );
    const client = new AbortController();
    const request = fetch(base, { signal: client.signal }).catch(() => 'aborted');
    await vi.waitFor(() => expect(arrived).toBe(true), WAIT);
    client.abort();
    expect(await request).toBe('aborted');
    await vi.waitFor(() => expect(released).toBe(true), WAIT);
  });

  it('ends a long hold when the client goes away', async () => {
    let released = false;
    let arrived = false;
    const base = await listen(
      createServer((req, res) => {
        arrived = true;
        void holdAnswer(res, 600_000).then(() => {
          released = true;
          res.destroy();
        });
      }),
    );
    const client = new AbortController();
    const request = fetch(base, { signal: client.signal }).catch(() => 'aborted');
    await vi.waitFor(() => expect(arrived).toBe(true), WAIT);
    expect(released).toBe(false);
    client.abort();
    expect(await request).toBe('aborted');
    await vi.waitFor(() => expect(released).toBe(true), WAIT);
  });
});
