/**
 * `vredact download <jobId>` over a listing whose names no request may carry (empty, blank, `..`,
 * control characters): each such item fails alone, named by its place in the listing, saying that the
 * listing is at fault and not the base URL; no signed URL is asked for it, and the other files are
 * saved.
 */
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isolatedEnv, runCli, tempDirPerTest } from '../helpers/cli.js';
import { resultWavOf } from '../helpers/result-wav.js';
import { expectFileBytes } from '../helpers/same-bytes.js';
import { startJobFilesServer, wavFile } from '../helpers/job-server.js';

const dir = tempDirPerTest('vredact-e2e-download-unusable-names-');

describe('download, a listing with names that cannot be used', () => {
  it('fails each of them alone, by its place, with what to do; asks for no URL for them; saves the rest', async () => {
    const fine = resultWavOf(3);
    const names = ['', 'b\x1b[2Jc.wav', '..', 'a.wav'];
    const asked: string[] = [];
    const server = await startJobFilesServer(
      names.map((file_name) => ({ file_name, audio_duration: 3 })),
      { 'a.wav': wavFile(fine) },
      asked,
    );
    try {
      const out = join(dir.path, 'out');
      const run = await runCli(['download', 'job1', '-o', out], {
        env: isolatedEnv(join(dir.path, 'config'), {
          VREDACT_BASE_URL: server.baseUrl,
          VREDACT_TOKEN: 'vr_test_unusable_names',
        }),
      });
      expect(run.exitCode, String(run.stderr)).toBe(1);
      const fix =
        "it cannot be asked for without a usable name; report the listing to the service's operators";
      expect(String(run.stderr).split('\n').sort()).toEqual([
        '1 downloaded, 0 skipped, 3 failed',
        `error: ..: item 3 of the job (id 3): its file name cannot be used (".." is not a file name); ${fix}`,
        `error: b\\x1b[2Jc.wav: item 2 of the job (id 2): its file name cannot be used (it contains control characters); ${fix}`,
        `error: item 1 of the job (id 1): its file name cannot be used (it is empty); ${fix}`,
      ]);
      expect(String(run.stderr)).not.toContain('\x1b');
      expect(asked).toEqual(['a.wav']);
      expect(await readdir(out)).toEqual(['a.wav']);
      await expectFileBytes(join(out, 'a.wav'), fine);
    } finally {
      await server.close();
    }
  });
});
