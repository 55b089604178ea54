import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { text } from 'node:stream/consumers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Socket } from 'node:net';
import { Agent, buildConnector, loadProxyAgent, Pool, request } from '../../src/api/undici-agent.js';

interface Received {
  method: string | undefined;
  url: string | undefined;
  authorization: string | undefined;
  body: string;
}

const received: Received[] = [];
const server = createServer((req: IncomingMessage, res) => {
  void text(req).then((body) => {
    received.push({ method: req.method, url: req.url, authorization: req.headers.authorization, body });
    res.writeHead(201, { 'content-type': 'text/plain', 'x-seen': String(received.length) });
    res.end(`echo:${body}`);
  });
});
let base: URL;

beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

// These load undici's own files by path (src/api/undici-agent.ts): a new undici that moves them, or
// stops wiring `request` onto its dispatchers the same way, fails here rather than in a user's run.
describe("undici's Agent and request, without undici's index", () => {
  it('sends method, path with query, headers and body through an Agent, and reads the answer', async () => {
    const agent = new Agent({ connectTimeout: 5_000, headersTimeout: 5_000, bodyTimeout: 5_000 });
    try {
      const response = await request(new URL('/api/things?page=2&q=a%20b', base), {
        method: 'POST',
        headers: { authorization: 'Bearer vr_test', 'content-type': 'text/plain' },
        body: 'hello',
        dispatcher: agent,
      });
      expect(response.statusCode).toBe(201);
      expect(response.headers['x-seen']).toBe(String(received.length));
      expect(await response.body.text()).toBe('echo:hello');
      expect(received.at(-1)).toEqual({
        method: 'POST',
        url: '/api/things?page=2&q=a%20b',
        authorization: 'Bearer vr_test',
        body: 'hello',
      });
    } finally {
      await agent.close();
    }
  });

  it('an aborted signal stops the request with an AbortError', async () => {
    const agent = new Agent();
    try {
      const controller = new AbortController();
      controller.abort();
      await expect(
        request(new URL('/api/jobs', base), { method: 'GET', dispatcher: agent, signal: controller.signal }),
      ).rejects.toMatchObject({ name: 'AbortError' });
    } finally {
      await agent.close();
    }
  });
});

// What early-answer.ts and dispatcher.ts need of undici: a new undici that changes it fails here
// rather than silently losing the answers that come before an upload is sent.
describe('what reading early answers needs of undici', () => {
  it('buildConnector makes a connector calling back (null, net.Socket) with the Writable hooks', async () => {
    const connect = buildConnector({ timeout: 5_000 });
    const socket = await new Promise<unknown>((resolve, reject) =>
      connect(
        { hostname: '127.0.0.1', host: base.host, protocol: 'http:', port: base.port },
        (error, made) => (error ? reject(error) : resolve(made)),
      ),
    );
    expect(socket).toBeInstanceOf(Socket);
    expect(typeof (socket as Socket)._write).toBe('function');
    expect(typeof (socket as Socket)._writev).toBe('function');
    (socket as Socket).destroy();
  });

  it("a Pool sends through the `connect` it is given; ProxyAgent's factory is given one", async () => {
    let connected = 0;
    const connect = buildConnector({ timeout: 5_000 });
    const pool = new Pool(base.origin, {
      connect: (options, callback) => {
        connected++;
        connect(options, callback);
      },
    });
    try {
      const response = await request(new URL('/x', base), { method: 'GET', dispatcher: pool });
      await response.body.text();
      expect(connected).toBe(1);
    } finally {
      await pool.close();
    }

    const factoryOptions: unknown[] = [];
    const ProxyAgent = loadProxyAgent();
    const proxied = new ProxyAgent({
      uri: 'http://127.0.0.1:9',
      factory: (origin, options) => {
        factoryOptions.push(options);
        return new Pool(origin, options);
      },
    });
    await proxied.request({ origin: 'http://service.test', path: '/', method: 'GET' }).catch(() => undefined);
    await proxied.close();
    expect(factoryOptions).toHaveLength(1);
    expect(typeof (factoryOptions[0] as { connect?: unknown }).connect).toBe('function');
  });
});
