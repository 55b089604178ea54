/**
 * A job of an earlier run that the service no longer knows (its `GET /api/jobs/{id}/content` answers
 * 404): the file is sent again in the same run, not failed for the next run to send. Against a
 * stand-in that forgets its jobs between runs: run 1 `--no-wait` leaves the file pending, submitted;
 * run 2 meets the 404 (twice: one look cannot tell a job gone), sends the file again, and either
 * collects its new job (done) or, with `--no-wait`, leaves it pending, submitted. Two uploads in all.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isolatedEnv, runCli, tempDirPerTest } from '../helpers/cli.js';
import { jsonLines } from '../helpers/e2e.js';
import { changedWav, layoutWav, uploadedWav } from '../helpers/result-wav.js';
import { expectFileBytes } from '../helpers/same-bytes.js';
import { type ScriptedServer, sendJson, startScriptedServer } from '../helpers/scripted-server.js';
import { readJournal } from '../helpers/journal.js';

const dir = tempDirPerTest('vredact-e2e-gone-job-');
const REDACT = '/api/speech-to-speech-biometric-redaction';
const recording = layoutWav({ sampleRate: 16_000, channels: 1, bits: 16 }, 2, 7);

/** A service that makes a job of each upload and forgets every job at `forget()` (a restart, say). */
async function startForgetfulService() {
  const uploaded = new Map<string, Buffer>();
  let era = 1;
  const server: ScriptedServer = await startScriptedServer((req, res, body) => {
    const url = req.url ?? '';
    if (req.method === 'POST' && url === REDACT) {
      const jobId = `e${era}-j${uploaded.size + 1}`;
      uploaded.set(jobId, Buffer.from(uploadedWav(body, req.headers['content-type'] ?? '')));
      return sendJson(res, 202, { job_id: jobId });
    }
    const known = (jobId: string | undefined) => jobId !== undefined && jobId.startsWith(`e${era}-`);
    const content = /^\/api\/jobs\/([^/]+)\/content$/.exec(url);
    if (content && known(content[1])) {
      const item = (id: number, file_name: string) => ({
        id,
        job_id: content[1],
        file_name,
        audio_duration: 2,
        created_at: '2026-11-28T00:00:00Z',
      });
      return sendJson(res, 200, { jobContent: [item(1, 'upload.wav'), item(2, `result_${content[1]}.wav`)] });
    }
    const link = /^\/api\/jobs\/([^/]+)\/files\/download-url$/.exec(url);
    if (link && known(link[1]))
      return sendJson(res, 200, { signedUrl: `${server.baseUrl}/objects/${link[1]}` });
    const object = uploaded.get(/^\/objects\/([^/?]+)$/.exec(url)?.[1] ?? '');
    if (object) {
      const result = changedWav(object);
      res.writeHead(200, { 'content-type': 'audio/wav', 'content-length': result.length });
      return void res.end(result);
    }
    if (url === '/api/jobs') return sendJson(res, 200, { jobs: [] });
    sendJson(res, 404, { error: 'not_found', message: 'job not found' });
  });
  return {
    server,
    forget: () => void era++,
    uploads: () => server.received.filter((r) => r.method === 'POST' && r.url === REDACT).length,
  };
}

async function run(server: ScriptedServer, extra: string[]) {
  const env = isolatedEnv(join(dir.path, '.config'), {
    VREDACT_BASE_URL: server.baseUrl,
    VREDACT_TOKEN: 'vr_test_gone_job_0123456789',
  });
  const result = await runCli(['redact', 'a.wav', '-o', 'out', '--json', ...extra], { env, cwd: dir.path });
  const line = jsonLines(result.stdout).find((l) => l.input === 'a.wav');
  return { result, line };
}

function journal(): Promise<Array<Record<string, unknown>>> {
  return readJournal(join(dir.path, 'out'));
}

describe('a job of an earlier run that the service no longer knows', () => {
  it.each([
    ['waiting', [] as string[]],
    ['--no-wait', ['--no-wait']],
  ])('has its file sent again in the same run (%s)', async (mode, extra) => {
    await writeFile(join(dir.path, 'a.wav'), recording);
    const service = await startForgetfulService();
    try {
      const first = await run(service.server, ['--no-wait']);
      expect(first.result.exitCode).toBe(0);
      expect(first.line).toMatchObject({ status: 'pending', jobId: 'e1-j1' });
      service.forget();

      const second = await run(service.server, extra);
      expect(service.uploads()).toBe(2);
      expect(second.result.exitCode).toBe(0);
      expect(String(second.result.stderr)).toContain(
        'a.wav: job e1-j1 of an earlier run no longer exists at the service',
      );
      // Run 1's look (--no-wait confirms its first job), then run 2's two, the second confirming it gone.
      const looks = service.server.received.filter((r) => r.url === '/api/jobs/e1-j1/content');
      expect(looks).toHaveLength(3);
      const events = (await journal()).map((l) => [l.event, l.jobId ?? l.uploadName]);
      if (mode === 'waiting') {
        expect(second.line).toMatchObject({ status: 'done', jobId: 'e2-j2' });
        await expectFileBytes(join(dir.path, 'out', 'a.wav'), changedWav(recording));
        expect(events.map(([event]) => event)).toEqual([
          'uploading',
          'submitted',
          'uploading',
          'submitted',
          'done',
        ]);
      } else {
        expect(second.line).toMatchObject({ status: 'pending', jobId: 'e2-j2' });
        expect(events.map(([event]) => event)).toEqual(['uploading', 'submitted', 'uploading', 'submitted']);
      }
      // The new upload has a line of its own, naming another upload than the gone job's.
      expect(events[2]?.[1]).not.toBe(events[0]?.[1]);
      expect(events[3]).toEqual(['submitted', 'e2-j2']);
    } finally {
      await service.server.close();
    }
  });
});
