/**
 * Answers of the service that come with a Content-Encoding the client never asked for (a gateway that
 * compresses whatever passes): they are read decoded, as a download already was, and bytes that do
 * not decode fail with a line that says so, not as "not a WAV file" or "neither audio nor a job id".
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { describe, expect, test } from 'vitest';
import { changedWav } from '../helpers/result-wav.js';
import { fixture, isolatedEnv, runCli, tempDirPerTest } from '../helpers/cli.js';
import { jsonLines, listFiles } from '../helpers/e2e.js';
import { startFileHost } from '../helpers/file-host.js';
import { type ScriptedHandler, startScriptedServer } from '../helpers/scripted-server.js';
import { speechInputs } from '../helpers/speech-files.js';
import { expectFileBytes } from '../helpers/same-bytes.js';

const TOKEN = 'vr_encoded_0123456789abcdef';
const REDACTION = '/api/speech-to-speech-biometric-redaction';
const dir = tempDirPerTest('vredact-encoded-');

/** Answers `body`, gzip bytes as they are (a test may have spoilt them), labelled gzip. */
function sendGzipped(res: Parameters<ScriptedHandler>[1], status: number, type: string, body: Buffer) {
  res.writeHead(status, { 'content-type': type, 'content-encoding': 'gzip', 'content-length': body.length });
  res.end(body);
}

function sendGzip(res: Parameters<ScriptedHandler>[1], status: number, type: string, bytes: Buffer) {
  sendGzipped(res, status, type, gzipSync(bytes));
}

/** A gzip stream whose deflate data and checksum no longer agree. */
function corruptGzip(bytes: Buffer): Buffer {
  const gzip = gzipSync(bytes);
  for (let i = 12; i < gzip.length - 8; i += 7) gzip[i] = (gzip[i] ?? 0) ^ 0x5a;
  return gzip;
}

async function run(handler: ScriptedHandler, args: string[]) {
  const server = await startScriptedServer(handler);
  try {
    const env = isolatedEnv(dir.path, { VREDACT_BASE_URL: server.baseUrl, VREDACT_TOKEN: TOKEN });
    return await runCli(args, { env, cwd: dir.path });
  } finally {
    await server.close();
  }
}

describe('an answer sent gzip-encoded', () => {
  test('a synchronous result is saved decoded: the WAV the service sent', async () => {
    const speech = changedWav(await readFile(fixture('speech-16bit.wav')));
    const out = join(dir.path, 'out');
    const result = await run(
      (req, res) => sendGzip(res, 200, 'audio/wav', speech),
      ['redact', await speechInputs(dir.path, 1), '-o', out],
    );
    expect(result.exitCode, String(result.stderr)).toBe(0);
    await expectFileBytes(join(out, 'call-0.wav'), speech);
  });

  test('a job answer (202) is read decoded, and the job collected', async () => {
    const speech = changedWav(await readFile(fixture('speech-16bit.wav')));
    const out = join(dir.path, 'out');
    const server = await startScriptedServer((req, res, body) => {
      const url = req.url ?? '';
      if (url === REDACTION) return sendGzip(res, 202, 'application/json', Buffer.from('{"job_id":"j1"}'));
      if (url === '/api/jobs/j1/content') {
        const item = { id: 1, job_id: 'j1', file_name: 'call-0.redacted.wav', audio_duration: 7 };
        return sendGzip(res, 200, 'application/json', Buffer.from(JSON.stringify({ jobContent: [item] })));
      }
      if (url === '/api/jobs/j1/files/download-url') {
        const { fileName } = JSON.parse(body.toString('utf8')) as { fileName: string };
        const signedUrl = `${server.baseUrl}/files/${fileName}`;
        return sendGzip(res, 200, 'application/json', Buffer.from(JSON.stringify({ signedUrl })));
      }
      if (url.startsWith('/files/')) return sendGzip(res, 200, 'audio/wav', speech);
      res.writeHead(404);
      res.end();
    });
    try {
      const env = isolatedEnv(dir.path, { VREDACT_BASE_URL: server.baseUrl, VREDACT_TOKEN: TOKEN });
      const result = await runCli(['redact', await speechInputs(dir.path, 1), '-o', out], {
        env,
        cwd: dir.path,
      });
      expect(result.exitCode, String(result.stderr)).toBe(0);
      await expectFileBytes(join(out, 'call-0.wav'), speech);
    } finally {
      await server.close();
    }
  });

  test('jobs list reads a gzip-encoded listing', async () => {
    const listing = { jobs: [{ job_id: 'j7', token: TOKEN, created_at: '2026-11-20T10:00:00Z' }] };
    const result = await run(
      (req, res) => sendGzip(res, 200, 'application/json', Buffer.from(JSON.stringify(listing))),
      ['jobs', 'list'],
    );
    expect(result.exitCode, String(result.stderr)).toBe(0);
    expect(String(result.stdout)).toMatch(/^j7\t/);
  });

  test('a result whose gzip does not decode fails its file, saying so, with nothing left under its name', async () => {
    const speech = await readFile(fixture('speech-16bit.wav'));
    const out = join(dir.path, 'out');
    const result = await run(
      (req, res) => {
        sendGzipped(res, 200, 'audio/wav', corruptGzip(speech));
      },
      ['redact', await speechInputs(dir.path, 1), '-o', out, '--json'],
    );
    expect(result.exitCode).toBe(1);
    const line = jsonLines(result.stdout).find((one) => 'input' in one);
    expect(line?.status).toBe('failed');
    expect(String(line?.reason)).toMatch(/does not decode as the gzip it was sent as/);
    expect(String(result.stderr)).not.toMatch(/^\s+at /m);
  });

  test('a download whose gzip does not decode fails its file at once, saying so, not as a network error retried', async () => {
    const speech = await readFile(fixture('speech-16bit.wav'));
    const host = await startFileHost({}, (name, res) => {
      sendGzipped(res, 200, 'audio/wav', corruptGzip(speech));
    });
    try {
      const env = isolatedEnv(dir.path, { VREDACT_BASE_URL: host.baseUrl, VREDACT_TOKEN: TOKEN });
      const result = await runCli(['download', 'j1', 'a.wav', '-o', join(dir.path, 'got')], {
        env,
        cwd: dir.path,
      });
      expect(result.exitCode).toBe(1);
      expect(String(result.stderr)).toMatch(
        /downloading a\.wav: the answer of the download link's host 127\.0\.0\.1:\d+ does not decode as the gzip it was sent as/,
      );
      expect(host.fileGets('a.wav')).toBe(1);
      expect(await listFiles(join(dir.path, 'got'))).toEqual([]);
    } finally {
      await host.close();
    }
  });
});
