/**
 * The gone-guard's look at the job listing fails for a moment (a 503, retries spent) before the
 * service is heard: the job that asked keeps its `submitted` line, pending, and a later gone-looking
 * job of the same run makes the look again (past the wait between looks, shortened for the test),
 * which the service answers: that job is taken for gone and its file sent again. Before, the first
 * failed look's verdict stood for the whole run, and every later gone job waited for the next run.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { isolatedEnv, runCli, tempDirPerTest } from '../helpers/cli.js';
import { jsonLines } from '../helpers/e2e.js';
import { startForgetfulService } from '../helpers/forgetful-service.js';
import { startInterceptingRelay } from '../helpers/intercepting-relay.js';
import { changedWav, layoutWav } from '../helpers/result-wav.js';
import { expectFileBytes } from '../helpers/same-bytes.js';
import { sendJson } from '../helpers/scripted-server.js';

const dir = tempDirPerTest('vredact-e2e-gone-second-look-');
const recordings = {
  'a.wav': layoutWav({ sampleRate: 16_000, channels: 1, bits: 16 }, 2, 7),
  'b.wav': layoutWav({ sampleRate: 16_000, channels: 1, bits: 16 }, 2, 9),
};
/** The wait between looks, for the test (VREDACT_TEST_LOOK_AGAIN_MS); a user's run waits 30 s. */
const LOOK_AGAIN_MS = 1000;

async function run(baseUrl: string, extra: string[] = []) {
  const env = isolatedEnv(join(dir.path, '.config'), {
    VREDACT_BASE_URL: baseUrl,
    VREDACT_TOKEN: 'vr_test_gone_second_look_0123456789',
    VREDACT_TEST_LOOK_AGAIN_MS: String(LOOK_AGAIN_MS),
  });
  const result = await runCli(['redact', 'in', '-o', 'out', '--json', '--no-progress', ...extra], {
    env,
    cwd: dir.path,
  });
  const files = jsonLines(result.stdout).filter((line) => 'input' in line);
  return { result, files, stderr: String(result.stderr) };
}

describe('a gone-guard look that failed for a moment', () => {
  it('is made again for a later gone-looking job, which is then taken for gone and sent again', async () => {
    await mkdir(join(dir.path, 'in'));
    for (const [name, bytes] of Object.entries(recordings))
      await writeFile(join(dir.path, 'in', name), bytes);
    const service = await startForgetfulService();
    let listings = 0;
    let firstJob: string | undefined;
    let listingFailed: Promise<void> | undefined;
    const relay = await startInterceptingRelay(service.server.baseUrl, async (req, res) => {
      const url = req.url ?? '';
      if (url === '/api/jobs' && ++listings === 1) {
        listingFailed = delay(0);
        return sendJson(res, 503, { error: 'busy' });
      }
      const content = /^\/api\/jobs\/([^/]+)\/content$/.exec(url)?.[1];
      if (content === undefined) return 'pass';
      firstJob ??= content;
      // The other job's 404s come only after the first look failed, and the wait between looks.
      if (content !== firstJob) {
        while (listingFailed === undefined) await delay(50);
        await delay(LOOK_AGAIN_MS + 500);
      }
      return 'pass';
    });
    try {
      const first = await run(service.server.baseUrl, ['--no-wait']);
      expect(first.result.exitCode, first.stderr).toBe(0);
      service.forget();

      const second = await run(relay.baseUrl, ['--max-retries', '0']);
      expect(second.result.exitCode, second.stderr).toBe(1);
      expect(listings).toBe(2);
      const byStatus = Object.fromEntries(second.files.map((line) => [line.status, line]));
      expect(Object.keys(byStatus).sort()).toEqual(['done', 'pending']);
      expect(byStatus.pending).toMatchObject({ jobId: firstJob });
      expect(String(byStatus.pending?.reason)).toMatch(
        /could not be told \(its job listing failed: .*503.*\); nothing was sent: a later run looks at job .* again$/,
      );
      expect(second.stderr).toMatch(/no longer exists at the service .*; sending the file again/);
      // One file sent again in the second run: the one whose job the later look took for gone.
      expect(service.uploads()).toBe(3);
      const resent = String(byStatus.done?.input);
      const name = resent.slice(resent.lastIndexOf('/') + 1) as keyof typeof recordings;
      await expectFileBytes(join(dir.path, 'out', name), changedWav(recordings[name]));
    } finally {
      await relay.close();
      await service.server.close();
    }
  }, 60_000);
});
