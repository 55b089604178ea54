/**
 * `vredact download` of a whole job fetches files as the job's listing is read: a service that sends
 * the rest of its listing only once a first file was fetched is served to the end (before, every
 * item was read first, and such a listing timed out).
 */
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isolatedEnv, runCli, tempDirPerTest } from '../helpers/cli.js';
import { startFileHost } from '../helpers/file-host.js';
import { seededWav } from '../helpers/holding-file-host.js';
import { sendJson, startScriptedServer } from '../helpers/scripted-server.js';

const dir = tempDirPerTest('vredact-e2e-download-streamed-');
const HALF = 40;

const item = (i: number) =>
  JSON.stringify({
    id: i + 1,
    job_id: 'job1',
    file_name: `f${i}.wav`,
    audio_duration: 1,
    created_at: '2024-01-01T00:00:00Z',
  });

describe('download, as the listing comes', () => {
  it('fetches the first files before the listing has ended, and every file in the end', async () => {
    let firstGet = () => {};
    const fetched = new Promise<void>((resolve) => {
      firstGet = resolve;
    });
    const server = await startScriptedServer(async (req, res, body) => {
      const url = req.url ?? '';
      if (url.endsWith('/content')) {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.write(`{"jobContent":[${Array.from({ length: HALF }, (_, i) => item(i)).join(',')}`);
        await fetched;
        res.end(`,${Array.from({ length: HALF }, (_, i) => item(HALF + i)).join(',')}]}`);
        return;
      }
      if (url.endsWith('/files/download-url')) {
        const { fileName } = JSON.parse(body.toString('utf8')) as { fileName: string };
        return sendJson(res, 200, { signedUrl: `/files/${fileName}` });
      }
      firstGet();
      const wav = seededWav(1, 1000);
      res.writeHead(200, { 'content-type': 'audio/wav', 'content-length': String(wav.length) });
      res.end(wav);
    });
    try {
      const out = join(dir.path, 'out');
      const result = await runCli(['download', 'job1', '-o', out, '--timeout', '5'], {
        env: isolatedEnv(join(dir.path, 'config'), {
          VREDACT_BASE_URL: server.baseUrl,
          VREDACT_TOKEN: 'vr_test_streamed_listing',
        }),
      });
      expect(result.exitCode, String(result.stderr)).toBe(0);
      expect((await readdir(out)).length).toBe(2 * HALF);
      expect(server.received.filter((r) => r.method === 'GET' && r.url.startsWith('/files/'))).toHaveLength(
        2 * HALF,
      );
    } finally {
      await server.close();
    }
  }, 60_000);

  it('at -c 1, over a listing longer than the queue of files waiting: every file, the listing taking no turn of theirs', async () => {
    const wav = seededWav(2, 100);
    const files = Object.fromEntries(Array.from({ length: 600 }, (_, i) => [`g${i}.wav`, wav] as const));
    const server = await startFileHost(files);
    try {
      const out = join(dir.path, 'out');
      const result = await runCli(['download', 'job1', '-c', '1', '-o', out, '--timeout', '5'], {
        env: isolatedEnv(join(dir.path, 'config'), {
          VREDACT_BASE_URL: server.baseUrl,
          VREDACT_TOKEN: 'vr_test_streamed_listing',
        }),
      });
      expect(result.exitCode, String(result.stderr)).toBe(0);
      expect((await readdir(out)).length).toBe(600);
    } finally {
      await server.close();
    }
  }, 60_000);
});
