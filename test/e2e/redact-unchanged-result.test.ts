/**
 * A result that is the uploaded file itself, byte for byte, is not a redaction: a host that echoes
 * uploads had each recording saved as redacted and journaled done, the speaker's voice in it. Against
 * a stand-in that sends each upload back, synchronously or as a job's only WAV listed under another
 * name: the recording fails, nothing is kept under its name, the next run sends it again; a file of
 * digital silence, which a service may give back as it came (the sandbox does), is done.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isolatedEnv, runCli, tempDirPerTest } from '../helpers/cli.js';
import { jsonLines, listFiles } from '../helpers/e2e.js';
import { layoutWav, uploadedWav } from '../helpers/result-wav.js';
import { expectFileBytes } from '../helpers/same-bytes.js';
import { sendJson, startScriptedServer } from '../helpers/scripted-server.js';

const dir = tempDirPerTest('vredact-e2e-unchanged-');
const REDACT = '/api/speech-to-speech-biometric-redaction';
const UNCHANGED = /the service's result is the uploaded file itself, unchanged \(the same SHA-256\)/;

const recording = layoutWav({ sampleRate: 16_000, channels: 1, bits: 16 }, 3, 5);
const silence = layoutWav({ sampleRate: 16_000, channels: 1, bits: 16 }, 3, 0);

function byInput(stdout: unknown): Record<string, Record<string, unknown>> {
  return Object.fromEntries(
    jsonLines(stdout)
      .filter((line) => typeof line.input === 'string')
      .map((line) => [line.input as string, line]),
  );
}

describe('a result that is the upload itself', () => {
  it('sent back as the answer: failed, nothing kept, sent again by the next run; silence is done', async () => {
    let uploads = 0;
    const server = await startScriptedServer((req, res, body) => {
      if (req.method === 'POST' && req.url === REDACT) {
        uploads++;
        const wav = uploadedWav(body, req.headers['content-type'] ?? '');
        res.writeHead(200, { 'content-type': 'audio/wav', 'content-length': wav.length });
        return void res.end(wav);
      }
      if (req.url === '/api/jobs') return sendJson(res, 200, { jobs: [] });
      sendJson(res, 404, { error: 404, message: 'not here' });
    });
    try {
      await writeFile(join(dir.path, 'call.wav'), recording);
      await writeFile(join(dir.path, 'quiet.wav'), silence);
      const env = isolatedEnv(join(dir.path, '.config'), {
        VREDACT_BASE_URL: server.baseUrl,
        VREDACT_TOKEN: 'vr_test_unchanged',
      });
      const run = () =>
        runCli(['redact', 'call.wav', 'quiet.wav', '-o', 'out', '--json'], { env, cwd: dir.path });
      const first = await run();
      expect(first.exitCode).toBe(1);
      const lines = byInput(first.stdout);
      expect(lines['call.wav']).toMatchObject({ status: 'failed', reason: expect.stringMatching(UNCHANGED) });
      expect(lines['quiet.wav']).toMatchObject({ status: 'done' });
      expect(
        (await listFiles(join(dir.path, 'out'))).filter((name) => !name.startsWith('.vredact/')),
      ).toEqual(['quiet.wav']);
      await expectFileBytes(join(dir.path, 'out', 'quiet.wav'), silence);
      expect(uploads).toBe(2);

      const second = await run();
      expect(second.exitCode).toBe(1);
      expect(byInput(second.stdout)['call.wav']).toMatchObject({ status: 'failed' });
      expect(uploads).toBe(3);
    } finally {
      await server.close();
    }
  });

  it("a job's only WAV, listed under another name: failed, nothing kept", async () => {
    const uploaded: Buffer[] = [];
    const server = await startScriptedServer((req, res, body) => {
      const url = req.url ?? '';
      if (req.method === 'POST' && url === REDACT) {
        uploaded.push(Buffer.from(uploadedWav(body, req.headers['content-type'] ?? '')));
        return sendJson(res, 202, { job_id: `j${uploaded.length}` });
      }
      const content = /^\/api\/jobs\/j(\d+)\/content$/.exec(url);
      if (content) {
        const jobId = `j${content[1]}`;
        return sendJson(res, 200, {
          jobContent: [
            {
              id: 1,
              job_id: jobId,
              file_name: 'source_audio.wav',
              audio_duration: 3,
              created_at: '2026-11-28T00:00:00Z',
            },
          ],
        });
      }
      const link = /^\/api\/jobs\/j(\d+)\/files\/download-url$/.exec(url);
      if (link) return sendJson(res, 200, { signedUrl: `${server.baseUrl}/files/${link[1]}` });
      const file = /^\/files\/(\d+)$/.exec(url);
      const bytes = file ? uploaded[Number(file[1]) - 1] : undefined;
      if (bytes) {
        res.writeHead(200, { 'content-type': 'audio/wav', 'content-length': bytes.length });
        return void res.end(bytes);
      }
      if (url === '/api/jobs') return sendJson(res, 200, { jobs: [] });
      sendJson(res, 404, { error: 404, message: 'not here' });
    });
    try {
      await writeFile(join(dir.path, 'call.wav'), recording);
      const env = isolatedEnv(join(dir.path, '.config'), {
        VREDACT_BASE_URL: server.baseUrl,
        VREDACT_TOKEN: 'vr_test_unchanged',
      });
      const run = await runCli(['redact', 'call.wav', '-o', 'out', '--json'], { env, cwd: dir.path });
      expect(run.exitCode).toBe(1);
      expect(byInput(run.stdout)['call.wav']).toMatchObject({
        status: 'failed',
        reason: expect.stringMatching(UNCHANGED),
      });
      expect(
        (await listFiles(join(dir.path, 'out'))).filter((name) => !name.startsWith('.vredact/')),
      ).toEqual([]);
    } finally {
      await server.close();
    }
  });
});
