/**
 * The service client against a scripted server on 127.0.0.1: what it sends, what it gives back, and
 * which error class each failure becomes. Uploads (`redact`) are tested end to end through the built
 * binary (test/e2e/): an upload to a server in the same process hangs on Node 24 with undici's FormData.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { ApiClient } from '../../src/api/client.js';
import {
  AuthenticationError,
  ConnectionError,
  InternalServerError,
  InvalidResponseError,
  NotFoundError,
  PermissionDeniedError,
  TimeoutError,
} from '../../src/api/errors.js';
import { LinkMissingError, LinkRefusedError } from '../../src/api/link-errors.js';
import { UnsafeIdentifierError } from '../../src/api/identifiers.js';
import type { Job } from '../../src/api/schemas.js';
import { systemClock } from '../../src/clock.js';
import { recordingLogger } from '../helpers/logger.js';
import {
  type ScriptedHandler,
  type ScriptedServer,
  sendJson,
  startScriptedServer,
} from '../helpers/scripted-server.js';

const TOKEN = 'vr_test_client_0123456789';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** Bodies of the requests received, by index (the scripted server keeps only their size). */
interface Setup {
  server: ScriptedServer;
  client: ApiClient;
  bodies: string[];
  log: ReturnType<typeof recordingLogger>;
}

async function setUp(
  handler: ScriptedHandler,
  options: { maxRetries?: number; basePath?: string } = {},
): Promise<Setup> {
  const bodies: string[] = [];
  const server = await startScriptedServer((req, res, body, index) => {
    bodies[index] = body.toString('utf8');
    return handler(req, res, body, index);
  });
  const log = recordingLogger();
  const client = new ApiClient({
    baseUrl: new URL(`${server.baseUrl}${options.basePath ?? ''}`),
    token: TOKEN,
    timeoutMs: 10_000,
    maxRetries: options.maxRetries ?? 2,
    // Retries are immediate: the tests count them, they never wait for them.
    clock: { ...systemClock, sleep: async () => {} },
    log,
    userAgent: 'vredact-test/1',
  });
  cleanups.push(
    () => server.close(),
    () => client.close(),
  );
  return { server, client, bodies, log };
}

/** Every job of the listing, held: each command keeps only what it needs (a sink of its own). */
async function allJobs(client: ApiClient): Promise<Job[]> {
  const sink = await client.eachJob(() => {
    const jobs: Job[] = [];
    return { jobs, add: (job: Job) => void jobs.push(job) };
  });
  return sink.jobs;
}

describe('--verbose retry lines', () => {
  it('say what was being done once, then the failure and the retry', async () => {
    const server = await startScriptedServer((_req, res, _body, index) =>
      index === 0 ? sendJson(res, 500, { message: 'hiccup' }) : sendJson(res, 200, { jobs: [] }),
    );
    const debug: string[] = [];
    const client = new ApiClient({
      baseUrl: new URL(server.baseUrl),
      token: TOKEN,
      timeoutMs: 10_000,
      maxRetries: 2,
      clock: { ...systemClock, sleep: async () => {} },
      log: { ...recordingLogger(), debug: (message) => debug.push(message) },
      userAgent: 'vredact-test/1',
    });
    cleanups.push(
      () => server.close(),
      () => client.close(),
    );
    await expect(allJobs(client)).resolves.toEqual([]);
    const retry = debug.find((line) => line.includes('retry 1/2'));
    expect(retry).toMatch(/^listing jobs: /);
    expect(retry).not.toMatch(/^listing jobs: listing jobs/);
  });

  it('call a backoff that drew 0 ms a retry, not a wait at the gate', async () => {
    const server = await startScriptedServer((_req, res, _body, index) =>
      index === 0 ? sendJson(res, 500, { message: 'hiccup' }) : sendJson(res, 200, { jobs: [] }),
    );
    const debug: string[] = [];
    const client = new ApiClient({
      baseUrl: new URL(server.baseUrl),
      token: TOKEN,
      timeoutMs: 10_000,
      maxRetries: 2,
      // Full jitter draws the wait from [0, cap): a draw of 0 is a wait of 0 ms.
      clock: { ...systemClock, random: () => 0, sleep: async () => {} },
      log: { ...recordingLogger(), debug: (message) => debug.push(message) },
      userAgent: 'vredact-test/1',
    });
    cleanups.push(
      () => server.close(),
      () => client.close(),
    );
    await expect(allJobs(client)).resolves.toEqual([]);
    expect(debug.filter((line) => line.includes('retry 1/2 in 0s'))).toHaveLength(1);
    expect(debug.join('\n')).not.toContain('waiting at the gate');
  });
});

describe('an answer that comes too slowly', () => {
  it('fails as timed out once a whole --timeout brought less than 1 KiB, though it never pauses that long', async () => {
    const server = await startScriptedServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"jobs":[{"job_id":"');
      // A byte every 50 ms: never a pause of --timeout (400 ms), but far below 1 KiB in one.
      const timer = setInterval(() => res.write('a'), 50);
      res.once('close', () => clearInterval(timer));
    });
    const client = new ApiClient({
      baseUrl: new URL(server.baseUrl),
      token: TOKEN,
      timeoutMs: 400,
      maxRetries: 0,
      clock: { ...systemClock, sleep: async () => {} },
      log: recordingLogger(),
      userAgent: 'vredact-test/1',
    });
    cleanups.push(
      () => server.close(),
      () => client.close(),
    );
    const failure = allJobs(client);
    await expect(failure).rejects.toBeInstanceOf(TimeoutError);
    await expect(failure).rejects.toThrow(
      /sent its answer too slowly: \d+ bytes in [\d.]+ s \(at least 1024/,
    );
  });
});

describe('JSON endpoints', () => {
  it('eachJob: GET /api/jobs with the bearer token; job tokens come back masked, unsafe ids left out with a warning', async () => {
    const { server, client, log } = await setUp((_req, res) =>
      sendJson(res, 200, {
        jobs: [
          { job_id: 'job-1', token: 'vr_live_secret_abcdef123456', created_at: '2026-11-22T05:00:00Z' },
          { job_id: 42 },
          { job_id: '../../etc' },
        ],
      }),
    );
    const jobs = await allJobs(client);
    expect(jobs.map((job) => job.job_id)).toEqual(['job-1', '42']);
    expect(jobs[0]?.token).not.toContain('secret_abcdef');
    expect(jobs[0]?.created_at).toBe('2026-11-22T05:00:00Z');
    expect(log.lines).toEqual([expect.stringMatching(/^warn: listing jobs: left out 1 job/)]);

    expect(server.received).toHaveLength(1);
    const [request] = server.received;
    expect(request).toMatchObject({ method: 'GET', url: '/api/jobs' });
    expect(request?.headers.authorization).toBe(`Bearer ${TOKEN}`);
    expect(request?.headers['user-agent']).toBe('vredact-test/1');
  });

  it("eachJob awaits the sink's drain after each chunk of the listing, with the jobs of that chunk handed over", async () => {
    const job = (i: number) => JSON.stringify({ job_id: `job-${i}`, token: 't', created_at: '' });
    const { client } = await setUp(async (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write(`{"jobs":[${job(0)},${job(1)}`);
      // Most likely a second chunk (nothing below depends on it).
      await new Promise((resolve) => setTimeout(resolve, 50));
      res.end(`,${job(2)}]}`);
    });
    const seenAtDrain: number[] = [];
    const sink = await client.eachJob(() => {
      const ids: string[] = [];
      return {
        ids,
        add: (one: { job_id: string }) => void ids.push(one.job_id),
        drain: async () => void seenAtDrain.push(ids.length),
      };
    });
    expect(sink.ids).toEqual(['job-0', 'job-1', 'job-2']);
    // Drained once a chunk's jobs were all handed over: never in the middle of one.
    expect(seenAtDrain.length).toBeGreaterThanOrEqual(1);
    expect(seenAtDrain.every((count) => count === 2 || count === 3)).toBe(true);
    expect(seenAtDrain.at(-1)).toBe(3);
  });

  it('a base URL with a path prefixes every request path', async () => {
    const { server, client } = await setUp((_req, res) => sendJson(res, 200, { jobs: [] }), {
      basePath: '/tenant/',
    });
    expect(await allJobs(client)).toEqual([]);
    expect(server.received[0]?.url).toBe('/tenant/api/jobs');
  });

  it('createJob: POST /api/jobs, the new job id back', async () => {
    const { server, client } = await setUp((_req, res) => sendJson(res, 201, { job_id: 'new-job' }));
    expect(await client.createJob()).toBe('new-job');
    expect(server.received[0]).toMatchObject({ method: 'POST', url: '/api/jobs' });
  });

  it('createJob: a new job id that would change a request path is refused, as every other command refuses it', async () => {
    for (const id of ['../../admin', 'a/b', '%2e%2e', '..']) {
      const { client } = await setUp((_req, res) => sendJson(res, 201, { job_id: id }));
      const failure = await client.createJob().catch((error: unknown) => error);
      expect(failure).toBeInstanceOf(UnsafeIdentifierError);
      expect((failure as Error).message).toMatch(
        /^creating a job: the service gave the job id ".*", which cannot be used/,
      );
    }
  });

  it("jobContent: the job's items, the id encoded in the path", async () => {
    const items = [
      { id: 1, job_id: 'a b', file_name: 'call.wav', audio_duration: 12.5, created_at: '' },
      { id: '2', file_name: 'call.redacted.wav' },
    ];
    const { server, client } = await setUp((_req, res) => sendJson(res, 200, { jobContent: items }));
    const content = await client.jobContent('a b');
    expect(content.map((item) => [item.id, item.file_name])).toEqual([
      ['1', 'call.wav'],
      ['2', 'call.redacted.wav'],
    ]);
    expect(server.received[0]?.url).toBe('/api/jobs/a%20b/content');
  });

  it('downloadUrl: POSTs the file name as JSON; a relative signed URL is resolved against the base URL', async () => {
    const { server, client, bodies } = await setUp((_req, res) =>
      sendJson(res, 200, { signedUrl: 'https://files.example/signed/call.wav?sig=abc' }),
    );
    const url = await client.downloadUrl('job-1', 'call.wav');
    expect(url.href).toBe('https://files.example/signed/call.wav?sig=abc');
    expect(server.received[0]).toMatchObject({ method: 'POST', url: '/api/jobs/job-1/files/download-url' });
    expect(server.received[0]?.headers['content-type']).toBe('application/json');
    expect(JSON.parse(bodies[0]!)).toEqual({ fileName: 'call.wav' });
  });

  it('an unsafe job id is refused before anything is sent', async () => {
    const { server, client } = await setUp((_req, res) => sendJson(res, 200, { jobContent: [] }));
    await expect(client.jobContent('../x')).rejects.toBeInstanceOf(UnsafeIdentifierError);
    await expect(client.downloadUrl('..', 'a.wav')).rejects.toBeInstanceOf(UnsafeIdentifierError);
    expect(server.received).toEqual([]);
  });
});

describe('errors by class', () => {
  it.each([
    [401, AuthenticationError],
    [403, PermissionDeniedError],
    [404, NotFoundError],
  ])('%d is a %o, sent once, its message scrubbed of the token', async (status, kind) => {
    const { server, client } = await setUp((_req, res) =>
      sendJson(res, status, { error: status, message: `no: ${TOKEN}` }),
    );
    const failure = await allJobs(client).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(kind);
    expect((failure as InstanceType<typeof kind>).status).toBe(status);
    expect((failure as Error).message).toContain(`the service answered ${status}`);
    expect((failure as Error).message).not.toContain(TOKEN);
    expect(server.received).toHaveLength(1);
  });

  it('a 503 is retried, and the answer after it is returned', async () => {
    const { server, client } = await setUp((_req, res, _body, index) =>
      index === 0
        ? sendJson(res, 503, { error: 503, message: 'busy' }, { 'retry-after': '0' })
        : sendJson(res, 201, { job_id: 'after-retry' }),
    );
    expect(await client.createJob()).toBe('after-retry');
    expect(server.received).toHaveLength(2);
  });

  it('createJob: a POST the service may have received (a 502, a dropped connection) is sent once, never again', async () => {
    const bad = await setUp((_req, res) => sendJson(res, 502, { error: 502, message: 'gateway' }));
    await expect(bad.client.createJob()).rejects.toBeInstanceOf(InternalServerError);
    expect(bad.server.received).toHaveLength(1);
    const dropped = await setUp((_req, res) => {
      res.socket?.destroy();
    });
    await expect(dropped.client.createJob()).rejects.toBeInstanceOf(ConnectionError);
    expect(dropped.server.received).toHaveLength(1);
  });

  it("a 404 for a job's content or a file's link says what to check", async () => {
    const { client } = await setUp((_req, res) => sendJson(res, 404, { error: 404, message: 'not found' }), {
      basePath: '/v2',
    });
    const content = await client.jobContent('j1').catch((error: unknown) => error);
    expect(content).toBeInstanceOf(NotFoundError);
    expect((content as NotFoundError).hint).toBe(
      'check the job id: `vredact jobs list` shows the jobs of this token',
    );
    const link = await client.downloadUrl('j1', 'a.wav').catch((error: unknown) => error);
    // The service's own 404 is not a link's host without the object yet: that job's file is the problem.
    expect(link).not.toBeInstanceOf(LinkMissingError);
    expect((link as NotFoundError).hint).toBe(
      'check the job id and the file name: `vredact jobs content <jobId>` lists its files',
    );
  });

  it('a redirect is not followed: sent once, the error says where it points and what to do', async () => {
    const { server, client } = await setUp((_req, res) => {
      res.writeHead(301, { location: `https://api.example.com/api/jobs?echo=${TOKEN}` });
      res.end();
    });
    const failure = await allJobs(client).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(InvalidResponseError);
    expect((failure as Error).message).toContain('the service answered 301 Moved Permanently');
    expect((failure as InvalidResponseError).hint).toBe(
      'it redirects to https://api.example.com/api/jobs?echo=vr_…6789, and vredact does not follow redirects of the service: if the service moved there, set the base URL to https://api.example.com (`vredact config set base-url https://api.example.com`)',
    );
    expect(server.received).toHaveLength(1);
  });

  it("a redirect's Location with user information: the hint shows it as ***@, never its password", async () => {
    const { client } = await setUp((_req, res) => {
      res.writeHead(307, { location: 'https://admin:hunter2-pass@moved.example.com/api/jobs' });
      res.end();
    });
    const failure = await allJobs(client).catch((error: unknown) => error);
    const hint = String((failure as InvalidResponseError).hint);
    expect(hint).toContain('it redirects to https://***@moved.example.com/api/jobs, and');
    expect(hint).not.toContain('hunter2');
  });

  it('a redirect with no Location still says the base URL is not the service', async () => {
    const { server, client } = await setUp((_req, res) => {
      res.writeHead(308);
      res.end();
    });
    const failure = await allJobs(client).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(InvalidResponseError);
    expect((failure as Error).message).toContain('the service answered 308 Permanent Redirect');
    expect((failure as InvalidResponseError).hint).toBe(
      "it redirects without saying where (no Location), and vredact does not follow redirects of the service: the base URL is not the service's own address (check http:// against https://, and its path): `vredact config get base-url` shows it, `vredact config set base-url <url>` sets it",
    );
    expect(server.received).toHaveLength(1);
  });

  it('a 500 that persists is an InternalServerError after 1 + maxRetries requests', async () => {
    const { server, client } = await setUp(
      (_req, res) => sendJson(res, 500, { error: 500, message: 'down' }),
      {
        maxRetries: 2,
      },
    );
    await expect(allJobs(client)).rejects.toBeInstanceOf(InternalServerError);
    expect(server.received).toHaveLength(3);
  });

  it('a 2xx answer that is not the documented JSON is an InvalidResponseError, not retried', async () => {
    const { server, client } = await setUp((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end('<html>proxy login</html>');
    });
    await expect(client.createJob()).rejects.toBeInstanceOf(InvalidResponseError);
    expect(server.received).toHaveLength(1);
  });

  it('a port where nothing listens is a ConnectionError that says the request never left', async () => {
    const { server, client } = await setUp((_req, res) => sendJson(res, 200, { jobs: [] }));
    await server.close();
    const failure = await allJobs(client).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(ConnectionError);
    expect((failure as ConnectionError).refused).toBe(true);
    expect((failure as Error).message).toContain(`127.0.0.1:${server.port}`);
  });
});

describe('downloadSigned', () => {
  it('GETs the signed URL without credentials and hands the body, its length and type to the sink', async () => {
    const audio = Buffer.alloc(3000, 9);
    const { server, client } = await setUp((_req, res) => {
      res.writeHead(200, { 'content-type': 'audio/WAV', 'content-length': audio.length });
      res.end(audio);
    });
    const got = await client.downloadSigned(
      new URL(`${server.baseUrl}/signed/a.wav?sig=1`),
      async (response) => {
        const chunks: Buffer[] = [];
        for await (const chunk of response.body) chunks.push(Buffer.from(chunk));
        return { bytes: Buffer.concat(chunks), length: response.contentLength, type: response.contentType };
      },
    );
    expect(got).toEqual({ bytes: audio, length: 3000, type: 'audio/wav' });
    expect(server.received[0]).toMatchObject({ method: 'GET', url: '/signed/a.wav?sig=1' });
    expect(server.received[0]?.headers.authorization).toBeUndefined();
  });

  it('a refused link (403) is a LinkRefusedError, and the sink is never called', async () => {
    const { server, client } = await setUp((_req, res) =>
      sendJson(res, 403, { error: 403, message: 'expired' }),
    );
    let called = false;
    const failure = client.downloadSigned(new URL(`${server.baseUrl}/signed/a.wav`), async () => {
      called = true;
    });
    await expect(failure).rejects.toBeInstanceOf(LinkRefusedError);
    expect(called).toBe(false);
  });

  it("a 404 or a 410 of the link's host is a LinkMissingError, once, its words and hint as any other answer's", async () => {
    const { server, client } = await setUp((req, res) =>
      req.url?.includes('gone')
        ? sendJson(res, 410, { error: 410, message: 'removed' })
        : sendJson(res, 404, { error: 404, message: 'no such key' }),
    );
    const missing = await client
      .downloadSigned(new URL(`${server.baseUrl}/signed/a.wav?sig=1`), async () => undefined)
      .catch((error: unknown) => error);
    expect(missing).toBeInstanceOf(LinkMissingError);
    expect(missing).toMatchObject({
      status: 404,
      message: `downloading a.wav: the download link's host 127.0.0.1:${server.port} answered 404 Not Found: no such key`,
      hint: "run the same command again for a fresh link; if it fails again, report it to the service's operators",
    });
    const gone = await client
      .downloadSigned(new URL(`${server.baseUrl}/signed/gone.wav`), async () => undefined)
      .catch((error: unknown) => error);
    expect(gone).toBeInstanceOf(LinkMissingError);
    expect(gone).toMatchObject({ status: 410 });
    // Not retried by the client: the batch's next poll asks for a new link instead.
    expect(server.received).toHaveLength(2);
  });

  it('a body its sink refuses without reading (an announced size past a cap) is closed at once', async () => {
    let closed: () => void;
    const serverSawClose = new Promise<void>((resolve) => (closed = resolve));
    const { server, client } = await setUp((_req, res) => {
      res.writeHead(200, { 'content-type': 'audio/wav' });
      // Endless: only the client closing the connection ends it.
      const timer = setInterval(() => res.write(Buffer.alloc(1024)), 20);
      res.once('close', () => {
        clearInterval(timer);
        closed();
      });
    });
    const refused = new Error('announced past the cap');
    const failure = client.downloadSigned(new URL(`${server.baseUrl}/signed/a.wav`), async () => {
      throw refused;
    });
    await expect(failure).rejects.toBe(refused);
    // Without the close, the connection stays open until the body timeout (10 s here): the test times out.
    await serverSawClose;
  });

  it("a sink's own error passes through as it is, without a retry", async () => {
    const { server, client } = await setUp((_req, res) => {
      res.writeHead(200, { 'content-type': 'audio/wav' });
      res.end(Buffer.alloc(10));
    });
    const own = new Error('disk full');
    await expect(
      client.downloadSigned(new URL(`${server.baseUrl}/signed/a.wav`), async () => {
        throw own;
      }),
    ).rejects.toBe(own);
    expect(server.received).toHaveLength(1);
  });

  it('a body refused before it is read is closed without an uncaught error', async () => {
    // undici closes a body it received whole but nobody read with an abort error, raised a tick
    // later: with nobody listening, it ended the whole process.
    const { server, client } = await setUp((_req, res) => {
      res.writeHead(200, { 'content-type': 'audio/wav' });
      res.end(Buffer.alloc(10));
    });
    const uncaught: unknown[] = [];
    const note = (error: unknown) => uncaught.push(error);
    process.on('uncaughtException', note);
    try {
      const own = new Error('over the cap');
      await expect(
        client.downloadSigned(new URL(`${server.baseUrl}/signed/a.wav`), async () => {
          throw own;
        }),
      ).rejects.toBe(own);
      for (let tick = 0; tick < 5; tick++) await new Promise((resolve) => setImmediate(resolve));
    } finally {
      process.off('uncaughtException', note);
    }
    expect(uncaught).toEqual([]);
  });

  it('a link redirected to another host that fails: the error names that host, not the service', async () => {
    const storage = await startScriptedServer((_req, res) => sendJson(res, 404, { error: 404 }));
    cleanups.push(storage.close);
    const { server, client } = await setUp((_req, res) => {
      res.writeHead(302, { location: `${storage.baseUrl}/bucket/a.wav?sig=storage-signature-0123` });
      res.end();
    });
    const failure = await client
      .downloadSigned(
        new URL(`${server.baseUrl}/signed/a.wav?sig=link-signature-0123`),
        async () => undefined,
      )
      .catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(LinkMissingError);
    expect((failure as LinkMissingError).message).toBe(
      `downloading a.wav: the host 127.0.0.1:${storage.port} the download link redirected to answered 404 Not Found`,
    );
    expect((failure as LinkMissingError).hint).toBe(
      "run the same command again for a fresh link; if it fails again, report it to the service's operators",
    );
  });

  it('a URL that is not http(s) is an InvalidResponseError, and nothing is sent', async () => {
    const { server, client } = await setUp((_req, res) => sendJson(res, 200, {}));
    await expect(
      client.downloadSigned(new URL('file:///etc/passwd'), async () => undefined),
    ).rejects.toBeInstanceOf(InvalidResponseError);
    expect(server.received).toEqual([]);
  });
});
