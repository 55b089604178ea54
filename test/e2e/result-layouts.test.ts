/**
 * The interface does not show the layout of a result: a service may keep its input's. A 12 s master
 * in 24-bit stereo at 96 kHz (576,000 bytes a second) and 8 s of 8 channels of 16-bit at 48 kHz
 * (768,000) are more bytes a second than the 48 kHz stereo 32-bit a result was once capped at, and
 * their results, the input's own bytes sent back, were failed (and sent again by every run) by
 * `redact` and failed by `download`. Now the cap counts a result's own rate: both are kept whole.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isolatedEnv, runCli, tempDirPerTest } from '../helpers/cli.js';
import { jsonLines } from '../helpers/e2e.js';
import { changedWav, layoutWav, uploadedWav } from '../helpers/result-wav.js';
import { expectFileBytes } from '../helpers/same-bytes.js';
import { sendJson, startScriptedServer } from '../helpers/scripted-server.js';

const dir = tempDirPerTest('vredact-e2e-result-layouts-');
const REDACT = '/api/speech-to-speech-biometric-redaction';

const master = layoutWav({ sampleRate: 96_000, channels: 2, bits: 24 }, 12);
const octo = layoutWav({ sampleRate: 48_000, channels: 8, bits: 16 }, 8, 9);

describe('results in a layout of more bytes a second than 48 kHz stereo 32-bit', () => {
  it('redact keeps a result sent back in its input own layout', async () => {
    let uploads = 0;
    const server = await startScriptedServer((req, res, body) => {
      if (req.method === 'POST' && req.url === REDACT) {
        uploads++;
        // Its own layout, as a redaction would keep it: other audio (the last byte, here) in it.
        const wav = changedWav(uploadedWav(body, req.headers['content-type'] ?? ''));
        res.writeHead(200, { 'content-type': 'audio/wav', 'content-length': wav.length });
        return void res.end(wav);
      }
      if (req.method === 'GET' && req.url === '/api/jobs') return sendJson(res, 200, { jobs: [] });
      sendJson(res, 404, { error: 404, message: 'not here' });
    });
    try {
      await writeFile(join(dir.path, 'master.wav'), master);
      await writeFile(join(dir.path, 'octo.wav'), octo);
      const env = isolatedEnv(join(dir.path, '.config'), {
        VREDACT_BASE_URL: server.baseUrl,
        VREDACT_TOKEN: 'vr_test_layouts',
      });
      const run = await runCli(
        ['redact', 'master.wav', 'octo.wav', '-o', 'out', '--json', '--max-size', '64MB'],
        {
          env,
          cwd: dir.path,
        },
      );
      expect(run.exitCode, String(run.stderr)).toBe(0);
      expect(jsonLines(run.stdout).flatMap((line) => line.status ?? [])).toEqual(['done', 'done']);
      expect(uploads).toBe(2);
      await expectFileBytes(join(dir.path, 'out', 'master.wav'), changedWav(master));
      await expectFileBytes(join(dir.path, 'out', 'octo.wav'), changedWav(octo));

      const again = await runCli(['redact', 'master.wav', 'octo.wav', '-o', 'out', '--json'], {
        env,
        cwd: dir.path,
      });
      expect(again.exitCode).toBe(0);
      expect(uploads).toBe(2);
    } finally {
      await server.close();
    }
  });

  it('download keeps such a file, listed with its duration', async () => {
    const server = await startScriptedServer((req, res, body) => {
      const url = req.url ?? '';
      if (url === '/api/jobs/job1/content') {
        return sendJson(res, 200, {
          jobContent: [
            { id: 1, job_id: 'job1', file_name: 'master.redacted.wav', audio_duration: 12 },
            { id: 2, job_id: 'job1', file_name: 'octo.redacted.wav', audio_duration: 8 },
          ],
        });
      }
      if (url === '/api/jobs/job1/files/download-url') {
        const { fileName } = JSON.parse(body.toString('utf8')) as { fileName: string };
        return sendJson(res, 200, { signedUrl: `${server.baseUrl}/files/${fileName}` });
      }
      const file = { '/files/master.redacted.wav': master, '/files/octo.redacted.wav': octo }[url];
      if (file) {
        res.writeHead(200, { 'content-type': 'audio/wav', 'content-length': file.length });
        return void res.end(file);
      }
      res.writeHead(404);
      res.end();
    });
    try {
      const out = join(dir.path, 'dl');
      const run = await runCli(['download', 'job1', '-o', out], {
        env: isolatedEnv(join(dir.path, '.config'), {
          VREDACT_BASE_URL: server.baseUrl,
          VREDACT_TOKEN: 'vr_test_layouts',
        }),
      });
      expect(run.exitCode, String(run.stderr)).toBe(0);
      await expectFileBytes(join(out, 'master.redacted.wav'), master);
      expect(Buffer.compare(await readFile(join(out, 'octo.redacted.wav')), octo)).toBe(0);
    } finally {
      await server.close();
    }
  });
});
