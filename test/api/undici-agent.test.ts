import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { text } from 'node:stream/consumers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Agent, request } from '../../src/api/undici-agent.js';

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
