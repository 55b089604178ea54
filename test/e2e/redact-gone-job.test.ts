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
import { startForgetfulService } from '../helpers/forgetful-service.js';
import { changedWav, layoutWav } from '../helpers/result-wav.js';
import { expectFileBytes } from '../helpers/same-bytes.js';
import type { ScriptedServer } from '../helpers/scripted-server.js';
import { readJournal } from '../helpers/journal.js';

const dir = tempDirPerTest('vredact-e2e-gone-job-');
const recording = layoutWav({ sampleRate: 16_000, channels: 1, bits: 16 }, 2, 7);

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
