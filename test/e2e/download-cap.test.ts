/**
 * `vredact download` against a signed URL that does not stop: a WAV header declaring 0xFFFFFFFF
 * bytes, then 1 MiB chunks (64 MiB of them, 30 times the cap). The file is cut off past the cap its listed duration gives (the rule of
 * `redact`'s results), its temporary file removed, it fails with a one-line reason, the other files
 * are downloaded, exit 1. Its line ends with what to do next.
 */
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { ServerResponse } from 'node:http';
import { describe, expect, it } from 'vitest';
import { downloadSizeCap } from '../../src/download/size-cap.js';
import { isolatedEnv, runCli, tempDirPerTest } from '../helpers/cli.js';
import { startJobFilesServer, wavFile } from '../helpers/job-server.js';
import { layoutWav, resultWavOf, streamingWavHead } from '../helpers/result-wav.js';
import { expectFileBytes } from '../helpers/same-bytes.js';

const dir = tempDirPerTest('vredact-e2e-download-cap-');

async function endlessWav(res: ServerResponse): Promise<void> {
  res.writeHead(200, { 'content-type': 'audio/wav' });
  res.write(streamingWavHead());
  const chunk = Buffer.alloc(1024 * 1024, 3);
  // Endless as far as the client's cap goes (about 2 MiB here); the bound keeps a client without a
  // cap from filling this machine's disk: it fails the test by finishing instead.
  for (let sent = 0; sent < 64 && !res.destroyed; sent++) {
    if (!res.write(chunk))
      await new Promise((resolve) => {
        res.once('drain', resolve);
        res.once('close', resolve);
      });
  }
  res.end();
}

describe('download, an endless body', () => {
  it('is cut off past its cap: that file fails, nothing of it left, the others go on, exit 1', async () => {
    const fine = resultWavOf(3);
    const server = await startJobFilesServer(
      [
        { file_name: 'endless.wav', audio_duration: 3 },
        { file_name: 'fine.wav', audio_duration: 3 },
      ],
      { 'endless.wav': endlessWav, 'fine.wav': wavFile(fine) },
    );
    try {
      const out = join(dir.path, 'out');
      const run = await runCli(['download', 'job1', '-o', out], {
        env: isolatedEnv(join(dir.path, 'config'), {
          VREDACT_BASE_URL: server.baseUrl,
          VREDACT_TOKEN: 'vr_test_download_cap',
        }),
      });
      expect(run.exitCode, String(run.stderr)).toBe(1);
      const cap = downloadSizeCap(3).bytes;
      const reason = `endless.wav: the file was cut off past ${cap} bytes, more than a 3 s recording can need; nothing of it was kept; report the file to the service's operators`;
      const stderr = String(run.stderr).split('\n');
      expect(stderr.filter((line) => line.includes('endless.wav'))).toEqual([`error: ${reason}`]);
      expect(String(run.stdout)).toBe(join(out, 'fine.wav'));
      expect(await readdir(out)).toEqual(['fine.wav']);
      await expectFileBytes(join(out, 'fine.wav'), fine);
      expect(server.received.filter((r) => r.url === '/files/endless.wav')).toHaveLength(1);
    } finally {
      await server.close();
    }
  });

  it('a WAV of no listed duration in a high-rate layout (96 kHz 24-bit stereo) is downloaded and verified', async () => {
    const master = layoutWav({ sampleRate: 96_000, channels: 2, bits: 24 }, 2.5);
    const server = await startJobFilesServer([{ file_name: 'master.wav' }], {
      // Chunked: no length announced, the header's size and the layout's rate are what bound it.
      'master.wav': (res) => {
        res.writeHead(200, { 'content-type': 'audio/wav' });
        res.write(master.subarray(0, 1000));
        res.end(master.subarray(1000));
      },
    });
    try {
      const out = join(dir.path, 'out');
      const run = await runCli(['download', 'job1', '-o', out, '--json'], {
        env: isolatedEnv(join(dir.path, 'config'), {
          VREDACT_BASE_URL: server.baseUrl,
          VREDACT_TOKEN: 'vr_test_download_cap',
        }),
      });
      expect(run.exitCode, String(run.stderr)).toBe(0);
      const outcomes = JSON.parse(String(run.stdout)) as Array<Record<string, unknown>>;
      expect(outcomes).toEqual([
        expect.objectContaining({ fileName: 'master.wav', status: 'downloaded', bytes: master.length }),
      ]);
      await expectFileBytes(join(out, 'master.wav'), master);
    } finally {
      await server.close();
    }
  });
});
