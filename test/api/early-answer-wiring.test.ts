/**
 * Which sockets hold a write failure: every connection undici makes for the client's dispatcher,
 * direct and through a proxy's CONNECT tunnel, is one readingEarlyAnswers handed over. Seen on
 * undici's `undici:client:connected` channel, which carries each connection's socket. (Whether the
 * answer is then read is test/e2e/early-answer-paths.test.ts's.)
 */
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { createServer } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dispatcherFor } from '../../src/api/dispatcher.js';
import { proxySettingsFrom } from '../../src/api/proxy.js';
import { request } from '../../src/api/undici-agent.js';
import { startConnectProxy } from '../helpers/connect-proxy.js';

const server = createServer((_req, res) => res.end('ok'));
let port: number;
beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

/** Whether each connection made while `run` runs holds write failures: its own `_write`. */
async function connectionsDuring(run: () => Promise<void>): Promise<boolean[]> {
  const held: boolean[] = [];
  const onConnected = (message: unknown) => {
    const { socket } = message as { socket: Socket };
    held.push(Object.hasOwn(socket, '_write'));
  };
  subscribe('undici:client:connected', onConnected);
  try {
    await run();
  } finally {
    unsubscribe('undici:client:connected', onConnected);
  }
  return held;
}

const OPTIONS = { connectTimeout: 5_000, headersTimeout: 5_000, bodyTimeout: 5_000 };

describe("the client's connections hold a write failure until the answer is read", () => {
  it('direct', async () => {
    const agent = dispatcherFor(OPTIONS, undefined);
    const held = await connectionsDuring(async () => {
      const response = await request(new URL(`http://127.0.0.1:${port}/`), {
        method: 'GET',
        dispatcher: agent,
      });
      expect(await response.body.text()).toBe('ok');
    });
    await agent.close();
    expect(held).toEqual([true]);
  });

  it("through a proxy's tunnel: the tunnelled socket, not only the connection to the proxy", async () => {
    const proxy = await startConnectProxy(['service.test']);
    const agent = dispatcherFor(OPTIONS, proxySettingsFrom({ HTTP_PROXY: proxy.url }));
    try {
      const held = await connectionsDuring(async () => {
        const response = await request(new URL(`http://service.test:${port}/`), {
          method: 'GET',
          dispatcher: agent,
        });
        expect(await response.body.text()).toBe('ok');
      });
      // The connection to the proxy, then the tunnel through it: the one the request is sent on.
      expect(proxy.connects.map((c) => c.target)).toEqual([`service.test:${port}`]);
      expect(held.at(-1)).toBe(true);
    } finally {
      await agent.close();
      await proxy.close();
    }
  });
});
