/**
 * `jobs` and `download` against answers the interface allows but does not show: a listing that
 * repeats a file, nulls in fields a listing does not need, a relative signed URL, a signed URL that
 * redirects to another host. What the servers received is asserted, token included.
 */
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { ServerResponse } from 'node:http';
import { describe, expect, test } from 'vitest';
import { isolatedEnv, runCli, tempDirPerTest } from '../helpers/cli.js';
import { type ScriptedServer, sendJson, startScriptedServer } from '../helpers/scripted-server.js';
import { expectFileBytes } from '../helpers/same-bytes.js';

const TOKEN = 'vr_test_hostile_download_0123';
const dir = tempDirPerTest('vredact-hostile-download-');

/** A small valid WAV (8 kHz mono 16-bit, silent) of `seconds`. */
function wav(seconds: number): Buffer {
  const data = 8000 * 2 * seconds;
  const b = Buffer.alloc(44 + data);
  b.write('RIFF', 0, 'latin1');
  b.writeUInt32LE(36 + data, 4);
  b.write('WAVEfmt ', 8, 'latin1');
  b.writeUInt32LE(16, 16);
  b.writeUInt16LE(1, 20);
  b.writeUInt16LE(1, 22);
  b.writeUInt32LE(8000, 24);
  b.writeUInt32LE(16000, 28);
  b.writeUInt16LE(2, 32);
  b.writeUInt16LE(16, 34);
  b.write('data', 36, 'latin1');
  b.writeUInt32LE(data, 40);
  return b;
}

function sendWav(res: ServerResponse): void {
  const body = wav(1);
  res.writeHead(200, { 'content-type': 'audio/wav', 'content-length': body.length });
  res.end(body);
}

interface ServiceScript {
  /** The items of every job's content listing. */
  content: unknown[];
  /** The signed URL handed out for a file name (default: `<service>/files/<name>`). */
  signedUrl?: (fileName: string, service: ScriptedServer) => string;
  /** Answers `GET /files/…` on the service (default: a 1 s WAV). */
  files?: (res: ServerResponse, path: string) => void;
  jobs?: unknown[];
}

async function service(script: ServiceScript): Promise<ScriptedServer> {
  const server: ScriptedServer = await startScriptedServer((req, res, body) => {
    const url = req.url ?? '';
    if (url === '/api/jobs' && req.method === 'GET') return sendJson(res, 200, { jobs: script.jobs ?? [] });
    if (url.endsWith('/content')) return sendJson(res, 200, { jobContent: script.content });
    if (url.endsWith('/files/download-url')) {
      const { fileName } = JSON.parse(body.toString('utf8')) as { fileName: string };
      const signedUrl =
        script.signedUrl?.(fileName, server) ?? `${server.baseUrl}/files/${encodeURIComponent(fileName)}`;
      return sendJson(res, 200, { signedUrl });
    }
    if (url.startsWith('/files/')) return script.files ? script.files(res, url) : sendWav(res);
    return sendJson(res, 404, { error: 404, message: 'not found' });
  });
  return server;
}

const item = (id: number, fileName: string, extra: Record<string, unknown> = {}) => ({
  id,
  job_id: 'job-1',
  file_name: fileName,
  audio_duration: 1,
  created_at: '2026-11-21T10:00:00Z',
  ...extra,
});

function envFor(server: ScriptedServer) {
  return isolatedEnv(dir.path, { VREDACT_BASE_URL: server.baseUrl, VREDACT_TOKEN: TOKEN });
}

const fileGets = (server: ScriptedServer) =>
  server.received.filter((r) => r.method === 'GET' && r.url.startsWith('/files/'));

describe('download, an empty answer', () => {
  test.each([
    ['204 No Content', 204],
    ['an empty 200', 200],
  ])(
    '%s: that file fails, nothing kept under its name, the other is saved, exit 1',
    async (_name, status) => {
      const server = await service({
        content: [item(1, 'empty.wav'), item(2, 'b.wav')],
        files: (res, path) => {
          if (!path.includes('empty')) return sendWav(res);
          res.writeHead(status, status === 204 ? {} : { 'content-type': 'audio/wav', 'content-length': 0 });
          res.end();
        },
      });
      try {
        const out = join(dir.path, 'out');
        const result = await runCli(['download', 'job-1', '-o', out], { env: envFor(server) });
        expect(result.exitCode).toBe(1);
        expect(result.stderr).toMatch(/empty\.wav: the service sent an empty file \(0 bytes\)/);
        expect(await readdir(out)).toEqual(['b.wav']);
      } finally {
        await server.close();
      }
    },
  );
});

describe('download, a file named twice', () => {
  test('a listing that repeats a file: fetched once, reported once, exit 0', async () => {
    const server = await service({ content: [item(1, 'a.wav'), item(1, 'a.wav'), item(2, 'b.wav')] });
    try {
      const out = join(dir.path, 'out');
      const result = await runCli(['download', 'job-1', '-o', out, '--json'], { env: envFor(server) });
      expect(result.exitCode).toBe(0);
      const outcomes = JSON.parse(String(result.stdout)) as { fileName: string; status: string }[];
      expect(outcomes.map((o) => [o.fileName, o.status]).sort()).toEqual([
        ['a.wav', 'downloaded'],
        ['b.wav', 'downloaded'],
      ]);
      expect((await readdir(out)).sort()).toEqual(['a.wav', 'b.wav']);
      expect(fileGets(server).map((r) => r.url)).toHaveLength(2);
    } finally {
      await server.close();
    }
  });

  test('a name given twice on the command line: fetched once, exit 0', async () => {
    const server = await service({ content: [] });
    try {
      const out = join(dir.path, 'out');
      const result = await runCli(['download', 'job-1', 'a.wav', 'a.wav', '-o', out], {
        env: envFor(server),
      });
      expect(result.exitCode).toBe(0);
      expect(result.stderr).not.toMatch(/error/);
      expect(await readdir(out)).toEqual(['a.wav']);
      expect(fileGets(server)).toHaveLength(1);
    } finally {
      await server.close();
    }
  });

  test('two names that differ only in letter case, into a fresh folder that keeps case apart: both saved, exit 0', async () => {
    const server = await service({
      content: [item(1, 'Take.wav'), item(2, 'take.wav')],
      files: (res, path) => {
        const body = wav(path.endsWith('/Take.wav') ? 1 : 2);
        res.writeHead(200, { 'content-type': 'audio/wav', 'content-length': body.length });
        res.end(body);
      },
    });
    try {
      const out = join(dir.path, 'fresh');
      const result = await runCli(['download', 'job-1', '-o', out], { env: envFor(server) });
      expect(result.exitCode).toBe(0);
      expect((await readdir(out)).sort()).toEqual(['Take.wav', 'take.wav']);
      await expectFileBytes(join(out, 'Take.wav'), wav(1));
      await expectFileBytes(join(out, 'take.wav'), wav(2));
    } finally {
      await server.close();
    }
  });

  test('two names that reduce to one base name: the second is not fetched and fails, exit 1', async () => {
    const server = await service({ content: [item(1, 'x/a.wav'), item(2, 'y/a.wav')] });
    try {
      const out = join(dir.path, 'out');
      const result = await runCli(['download', 'job-1', '-o', out], { env: envFor(server) });
      expect(result.exitCode).toBe(1);
      expect(result.stderr).toMatch(/y\/a\.wav: x\/a\.wav is saved under the same name/);
      expect(await readdir(out)).toEqual(['a.wav']);
      expect(fileGets(server)).toHaveLength(1);
    } finally {
      await server.close();
    }
  });
});

describe('listings with nulls and numbers as text in fields they do not need', () => {
  test('jobs list, jobs content and download go on; the duration given as text is read', async () => {
    const server = await service({
      jobs: [
        { job_id: 'job-1', token: null, created_at: null },
        { job_id: 'job-2', token: TOKEN, created_at: '2026-11-21T10:00:00Z' },
      ],
      content: [
        item(1, 'a.wav', { job_id: null, created_at: null, audio_duration: '75.4' }),
        item(2, 'b.wav', { audio_duration: null }),
      ],
    });
    try {
      const env = envFor(server);
      const list = await runCli(['jobs', 'list', '--json'], { env });
      expect(list.exitCode).toBe(0);
      const jobs = JSON.parse(String(list.stdout)) as { job_id: string }[];
      expect(jobs.map((job) => job.job_id)).toEqual(['job-2', 'job-1']);
      expect(String(list.stdout)).not.toContain(TOKEN);

      const content = await runCli(['jobs', 'content', 'job-1'], { env });
      expect(content.exitCode).toBe(0);
      expect(String(content.stdout).split('\n')[0]).toMatch(/^1\ta\.wav\t1:15\t$/);

      const out = join(dir.path, 'out');
      const download = await runCli(['download', 'job-1', '-o', out], { env });
      expect(download.exitCode).toBe(0);
      expect((await readdir(out)).sort()).toEqual(['a.wav', 'b.wav']);
    } finally {
      await server.close();
    }
  });
});

describe('signed URLs', () => {
  test('a relative signed URL is fetched from the service, without the token', async () => {
    const server = await service({
      content: [item(1, 'a.wav')],
      signedUrl: (name) => `/files/${encodeURIComponent(name)}?sig=1`,
    });
    try {
      const out = join(dir.path, 'out');
      const result = await runCli(['download', 'job-1', '-o', out], { env: envFor(server) });
      expect(result.exitCode).toBe(0);
      await expectFileBytes(join(out, 'a.wav'), wav(1));
      const gets = fileGets(server);
      expect(gets.map((r) => r.url)).toEqual(['/files/a.wav?sig=1']);
      expect(gets[0]?.headers.authorization).toBeUndefined();
    } finally {
      await server.close();
    }
  });

  test('a signed URL that redirects to another host is followed; neither host gets the token', async () => {
    const storage = await startScriptedServer((_req, res) => sendWav(res));
    const server = await service({
      content: [item(1, 'a.wav')],
      files: (res, path) => {
        res.writeHead(302, { location: `${storage.baseUrl}/bucket${path}` });
        res.end();
      },
    });
    try {
      const out = join(dir.path, 'out');
      const result = await runCli(['download', 'job-1', '-o', out], { env: envFor(server) });
      expect(result.exitCode).toBe(0);
      await expectFileBytes(join(out, 'a.wav'), wav(1));
      expect(storage.received.map((r) => r.url)).toEqual(['/bucket/files/a.wav']);
      expect(storage.received[0]?.headers.authorization).toBeUndefined();
      expect(fileGets(server)[0]?.headers.authorization).toBeUndefined();
    } finally {
      await server.close();
      await storage.close();
    }
  });

  test('a signed URL that redirects for ever fails that file clearly, after a few hops, exit 1', async () => {
    const server = await service({
      content: [item(1, 'a.wav')],
      files: (res, path) => {
        res.writeHead(307, { location: `${path}x` });
        res.end();
      },
    });
    try {
      const out = join(dir.path, 'out');
      const result = await runCli(['download', 'job-1', '-o', out, '--max-retries', '0'], {
        env: envFor(server),
      });
      expect(result.exitCode).toBe(1);
      expect(result.stderr).toMatch(/a\.wav: .*redirected too many times/);
      expect(fileGets(server).length).toBeLessThanOrEqual(11);
      expect(await readdir(out)).toEqual([]);
    } finally {
      await server.close();
    }
  });
});

describe('download, many files at once', () => {
  test('-c 16 over 40 files: every file, and nothing but the outcomes on stderr (no Node warning)', async () => {
    const names = Array.from({ length: 40 }, (_, i) => `f${i}.wav`);
    const server = await service({ content: names.map((name, i) => item(i, name)) });
    try {
      const out = join(dir.path, 'out');
      const result = await runCli(['download', 'job-1', '-o', out, '-c', '16', '-q'], {
        env: envFor(server),
      });
      expect(result.exitCode).toBe(0);
      expect(result.stderr).toBe('');
      expect((await readdir(out)).sort()).toEqual([...names].sort());
    } finally {
      await server.close();
    }
  });
});

describe('download, a signed URL with a very long path', () => {
  test('its failure is one short line: the name in it is cut, saying so', async () => {
    const long = 'x'.repeat(5_000);
    const server = await service({
      content: [item(1, 'a.wav')],
      signedUrl: () => `${server.baseUrl}/files/${long}`,
      files: (res) => sendJson(res, 404, { error: 404, message: 'gone' }),
    });
    try {
      const out = join(dir.path, 'out');
      const result = await runCli(['download', 'job-1', '-o', out], { env: envFor(server) });
      expect(result.exitCode).toBe(1);
      const line =
        String(result.stderr)
          .split('\n')
          .find((l) => l.startsWith('error: a.wav:')) ?? '';
      expect(line).toMatch(
        /more characters\): the download link's host 127\.0\.0\.1:\d+ answered 404 Not Found: gone; run the same command again for a fresh link; if it fails again, report it to the service's operators$/,
      );
      expect(line.length).toBeLessThan(400);
    } finally {
      await server.close();
    }
  });
});
