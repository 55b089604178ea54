/**
 * What the user is told, and what the service receives, at the edges of "Talking to the service",
 * through the built binary against a scripted server: a 408 that outlasts its retries, an error body
 * past the read cap, the content coding asked for, and a base URL with an empty port.
 */
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { isolatedEnv, runCli, tempDirPerTest } from '../helpers/cli.js';
import { type ScriptedHandler, sendJson, startScriptedServer } from '../helpers/scripted-server.js';

const TOKEN = 'vr_servicehints_0123456789abcdef';
const dir = tempDirPerTest('vredact-service-hints-');

async function run(handler: ScriptedHandler, args: string[], env: Record<string, string> = {}) {
  const server = await startScriptedServer(handler);
  try {
    const result = await runCli([...args, '--max-retries', '0'], {
      env: isolatedEnv(join(dir.path, '.config'), {
        VREDACT_BASE_URL: server.baseUrl,
        VREDACT_TOKEN: TOKEN,
        ...env,
      }),
    });
    return { ...result, stderrLines: String(result.stderr).trimEnd().split('\n'), server };
  } finally {
    await server.close();
  }
}

describe('a 408 that still fails after its retries', () => {
  test('says the request timed out on the way, not to check the base URL', async () => {
    const result = await run(
      (_req, res) => sendJson(res, 408, { error: 408, message: 'too slow' }),
      ['jobs', 'list'],
    );
    expect(result.exitCode).toBe(1);
    expect(result.stderrLines).toEqual([
      'error: listing jobs: the service answered 408 Request Timeout: too slow',
      'hint: the service, or a proxy between, gave up waiting for the request: check the network and any proxy on the way, raise --timeout if that is what limits it, or try again later',
    ]);
  });

  test("a file's link request answered 408 says the same, not to check the file name", async () => {
    const result = await run(
      (req, res) => {
        if (/\/content$/.test(req.url ?? ''))
          return sendJson(res, 200, { jobContent: [{ file_name: 'a.wav' }] });
        return sendJson(res, 408, { error: 408, message: 'too slow' });
      },
      ['download', 'job1', '-o', join(dir.path, 'out')],
    );
    expect(result.exitCode).toBe(1);
    expect(String(result.stderr)).toContain('408 Request Timeout');
    expect(String(result.stderr)).toContain('gave up waiting for the request');
    expect(String(result.stderr)).not.toMatch(/check the file name|base URL/);
  });
});

describe('an error body over the 64 KiB read cap', () => {
  test('with its JSON message in the first 64 KiB: the message, and that the body was cut', async () => {
    const body = JSON.stringify({ error: 500, message: 'database on fire', detail: 'x'.repeat(200_000) });
    const result = await run(
      (_req, res) => {
        res.writeHead(500, { 'content-type': 'application/json' });
        res.end(body);
      },
      ['jobs', 'list'],
    );
    expect(result.exitCode).toBe(1);
    expect(result.stderrLines[0]).toBe(
      'error: listing jobs: the service answered 500 Internal Server Error: database on fire (its error body was over 64 KiB; only the start was read)',
    );
  });

  test('without a message in its first 64 KiB: the status, and that the body was too large to read', async () => {
    const result = await run(
      (_req, res) => {
        res.writeHead(502, { 'content-type': 'text/html' });
        res.end(`<html>${'<p>gateway</p>'.repeat(20_000)}</html>`);
      },
      ['jobs', 'list'],
    );
    expect(result.exitCode).toBe(1);
    expect(result.stderrLines[0]).toBe(
      'error: listing jobs: the service answered 502 Bad Gateway (its error body was over 64 KiB, too large to read)',
    );
  });
});

describe('content coding', () => {
  test('requests to the service and to a download link ask for no coding: Accept-Encoding: identity', async () => {
    const result = await run(
      (req, res) => {
        const path = req.url ?? '';
        if (/\/content$/.test(path)) return sendJson(res, 200, { jobContent: [{ file_name: 'a.wav' }] });
        if (path.endsWith('/files/download-url')) return sendJson(res, 200, { signedUrl: '/files/a.wav' });
        res.writeHead(200, { 'content-type': 'audio/wav' });
        res.end(Buffer.from('RIFF'));
      },
      ['download', 'job1', '-o', join(dir.path, 'out')],
    );
    const received = result.server.received;
    expect(received.map((request) => request.url)).toEqual([
      '/api/jobs/job1/content',
      '/api/jobs/job1/files/download-url',
      '/files/a.wav',
    ]);
    for (const request of received) expect(request.headers['accept-encoding']).toBe('identity');
  });
});

describe('a base URL with a colon and no port', () => {
  test('is refused before any request, saying what to write, exit 2', async () => {
    const result = await runCli(['jobs', 'list'], {
      env: isolatedEnv(join(dir.path, '.config'), {
        VREDACT_BASE_URL: 'http://127.0.0.1:',
        VREDACT_TOKEN: TOKEN,
      }),
    });
    expect(result.exitCode).toBe(2);
    expect(String(result.stderr)).toContain('the service URL "http://127.0.0.1:" has a ":" but no port');
    expect(String(result.stderr)).toContain('hint: write the port after the ":"');
  });
});
