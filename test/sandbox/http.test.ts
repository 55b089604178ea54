import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { pathOf, readJsonBodyOrReply, sendJson } from '../../src/sandbox/http.js';

const servers: Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
});

/** A server that echoes the JSON body it read (as `{ body }`), or lets readJsonBodyOrReply answer. */
async function echoServer(): Promise<string> {
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    void readJsonBodyOrReply(req, res).then((read) => {
      if (read.ok) sendJson(res, 200, { body: read.body ?? null, path: pathOf(req) });
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

const post = (base: string, body: string, path = '/x') =>
  fetch(`${base}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });

describe('reading a JSON body', () => {
  it('a JSON body is read; an empty one is undefined; the path comes without its query', async () => {
    const base = await echoServer();
    const answer = await post(base, '{"fileName":"a.wav"}', '/api/x?sig=secret');
    expect(answer.status).toBe(200);
    expect(await answer.json()).toEqual({ body: { fileName: 'a.wav' }, path: '/api/x' });
    expect(await (await post(base, '  ')).json()).toEqual({ body: null, path: '/x' });
  });

  it('a body that is not JSON is a 400 with the error body', async () => {
    const base = await echoServer();
    const answer = await post(base, '{oops');
    expect(answer.status).toBe(400);
    expect(answer.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await answer.json()).toEqual({ error: 400, message: 'the request body is not valid JSON' });
  });

  it('a body over 64 KiB is a 413 that reaches the client', async () => {
    const base = await echoServer();
    const answer = await post(base, JSON.stringify({ pad: 'x'.repeat(70 * 1024) }));
    expect(answer.status).toBe(413);
    expect(await answer.json()).toMatchObject({
      error: 413,
      message: expect.stringContaining('larger than'),
    });
  });
});
