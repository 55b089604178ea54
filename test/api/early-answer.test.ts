import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { writeFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dispatcherFor } from '../../src/api/dispatcher.js';
import { multipartWithFile } from '../../src/api/multipart.js';
import { request } from '../../src/api/undici-agent.js';
import { tempDirPerTest } from '../helpers/cli.js';

// A proxy refusing every upload from its headers: 413 at once, the connection destroyed 5 ms later
// with the body unread (the kernel resets it). The client is writing a file read from disk meanwhile.
const server = createServer((req, res) => {
  res.writeHead(413, { 'content-type': 'text/html', connection: 'close' });
  res.end('<html>413 Request Entity Too Large</html>');
  setTimeout(() => req.socket.destroy(), 5);
});
let base: URL;
const dir = tempDirPerTest('vredact-early-unit-');

beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}/up`);
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

describe("the client's dispatcher and an answer before the body is sent", () => {
  it('hands over the answer, not the failed write (EPIPE, ECONNRESET), for every upload', async () => {
    const file = join(dir.path, 'big.wav');
    await writeFile(file, Buffer.alloc(2 * 1024 * 1024, 1));
    const agent = dispatcherFor(
      { connectTimeout: 5_000, headersTimeout: 5_000, bodyTimeout: 5_000 },
      undefined,
    );
    try {
      const outcomes = await Promise.all(
        Array.from({ length: 12 }, async () => {
          const form = await multipartWithFile({}, 'source_audio', file, 'big.wav', 'audio/wav');
          try {
            const response = await request(base, {
              method: 'POST',
              headers: { 'content-type': form.contentType, 'content-length': String(form.contentLength) },
              body: form.body,
              dispatcher: agent,
            });
            const text = await response.body.text().catch(() => '');
            return `${response.statusCode} ${text.includes('413') ? 'page' : 'no page'}`;
          } catch (error) {
            return `error ${(error as { code?: string }).code ?? String(error)}`;
          }
        }),
      );
      expect(outcomes).toEqual(Array(12).fill('413 page'));
    } finally {
      await agent.close();
    }
  });
});
