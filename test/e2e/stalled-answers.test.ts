/**
 * Answers that stall: the host sends the headers and part of the body, then nothing, its connection
 * left open. A download is tried again once, not up to --max-retries (each try waited a whole
 * --timeout more), and fails saying it stalled; a redaction's synchronous result that stalls fails
 * its file saying so (an upload is never sent again where the service may have taken it).
 */
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isolatedEnv, runCli, tempDirPerTest } from '../helpers/cli.js';
import { listFiles } from '../helpers/e2e.js';
import { startFileHost } from '../helpers/file-host.js';
import { REDACTION, uploads } from '../helpers/holding-service.js';
import { wavCutShort } from '../helpers/result-wav.js';
import { startScriptedServer } from '../helpers/scripted-server.js';
import { speechInputs } from '../helpers/speech-files.js';

const TOKEN = 'vr_test_stalled_0123456789';
const dir = tempDirPerTest('vredact-e2e-stalled-');

/** A WAV of 1 MiB announced whole: its first 64 KiB, then nothing. */
const stallingBody = (res: import('node:http').ServerResponse) => {
  res.writeHead(200, { 'content-type': 'audio/wav', 'content-length': String(1024 * 1024) });
  res.write(wavCutShort(1024 * 1024 - 44, 64 * 1024));
};

describe('an answer that stalls', () => {
  it('download: a stalled body is tried again once, whatever --max-retries, and the file fails saying it stalled; nothing is saved', async () => {
    const server = await startFileHost({}, (_name, res) => stallingBody(res));
    try {
      const out = join(dir.path, 'out');
      const result = await runCli(['download', 'job1', 'slow.wav', '-o', out, '--timeout', '1'], {
        env: isolatedEnv(join(dir.path, 'config'), {
          VREDACT_BASE_URL: server.baseUrl,
          VREDACT_TOKEN: TOKEN,
        }),
      });

      expect(result.exitCode, String(result.stderr)).toBe(1);
      // The default --max-retries is 4: five tries, each waiting out a whole --timeout.
      expect(server.fileGets('slow.wav')).toBe(2);
      expect(String(result.stderr)).toMatch(
        /^error: slow\.wav: downloading slow\.wav: the download link's host 127\.0\.0\.1:\d+ stalled: its answer stopped coming \(no byte within --timeout, UND_ERR_BODY_TIMEOUT\), twice; try again later; raise --timeout only if the network is that slow$/m,
      );
      expect(String(result.stderr)).toMatch(/^0 downloaded, 0 skipped, 1 failed$/m);
      expect(await readdir(out)).toEqual([]);
    } finally {
      await server.close();
    }
  }, 60_000);

  it('redact: a synchronous result that stalls fails its file saying it stalled, sent once, nothing under its output name', async () => {
    const server = await startScriptedServer((req, res) => {
      if (req.url === REDACTION) return stallingBody(res);
      // The look for the job of an upload whose answer was lost: none.
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(req.url === '/api/jobs' ? { jobs: [] } : { jobContent: [] }));
    });
    try {
      await speechInputs(dir.path, 1);
      const result = await runCli(['redact', 'in', '-o', 'out', '--timeout', '1'], {
        cwd: dir.path,
        env: isolatedEnv(join(dir.path, 'config'), {
          VREDACT_BASE_URL: server.baseUrl,
          VREDACT_TOKEN: TOKEN,
        }),
      });

      expect(result.exitCode, String(result.stderr)).toBe(1);
      expect(uploads(server)).toBe(1);
      expect(String(result.stdout)).toMatch(
        /^failed\tin\/call-0\.wav\tredacting call-0\.wav: 127\.0\.0\.1:\d+ stalled: its answer stopped coming \(no byte within --timeout, UND_ERR_BODY_TIMEOUT\); the service may have taken it: the next run looks for its job before sending again$/m,
      );
      const outputs = (await listFiles(join(dir.path, 'out'))).filter(
        (file) => !file.startsWith('.vredact/'),
      );
      expect(outputs).toEqual([]);
    } finally {
      await server.close();
    }
  }, 60_000);
});
