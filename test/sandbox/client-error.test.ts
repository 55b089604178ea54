/** Requests Node's HTTP parser refuses before any handler runs still get the listener's error body. */
import { connect } from 'node:net';
import { describe, expect, test } from 'vitest';
import { startTestSandbox, TOKEN, useCleanup } from '../helpers/sandbox-api.js';

useCleanup();

/** Writes raw bytes to `base` and reads everything until the server closes the connection. */
function rawExchange(base: string, bytes: string): Promise<{ head: string; body: string }> {
  const { hostname, port } = new URL(base);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => socket.write(bytes));
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    // The server may cut the connection while this side is still writing: what came back counts.
    socket.on('error', () => {});
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const end = text.indexOf('\r\n\r\n');
      if (end === -1) reject(new Error(`no HTTP answer: ${JSON.stringify(text.slice(0, 200))}`));
      else resolve({ head: text.slice(0, end), body: text.slice(end + 4) });
    });
  });
}

const bigHeader = (path: string) =>
  `GET ${path} HTTP/1.1\r\nHost: sandbox\r\nAuthorization: Bearer ${TOKEN}\r\n` +
  `X-Padding: ${'a'.repeat(64 * 1024)}\r\n\r\n`;

describe('requests the HTTP parser refuses', () => {
  test('API: headers too large are a 431 with the interface error body', async () => {
    const sandbox = await startTestSandbox();
    const { head, body } = await rawExchange(sandbox.baseUrl, bigHeader('/api/jobs'));
    expect(head).toMatch(/^HTTP\/1\.1 431 /);
    expect(head).toMatch(/\r\ncontent-type: application\/json/i);
    expect(JSON.parse(body)).toEqual({ error: 431, message: expect.stringContaining('header') });
  });

  test('API: a request that is not HTTP is a 400 with the interface error body', async () => {
    const sandbox = await startTestSandbox();
    const { head, body } = await rawExchange(sandbox.baseUrl, 'HELLO SANDBOX\r\n\r\n');
    expect(head).toMatch(/^HTTP\/1\.1 400 /);
    expect(JSON.parse(body)).toEqual({ error: 400, message: expect.any(String) });
  });

  test('file listener: the answer is its XML error body', async () => {
    const sandbox = await startTestSandbox();
    const { head, body } = await rawExchange(sandbox.filesUrl, bigHeader('/files/a/b.wav'));
    expect(head).toMatch(/^HTTP\/1\.1 431 /);
    expect(head).toMatch(/\r\ncontent-type: application\/xml/i);
    expect(body).toMatch(/<Error><Code>\w+<\/Code><Message>[^<]+<\/Message><\/Error>/);
  });
});
