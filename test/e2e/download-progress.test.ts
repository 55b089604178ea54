/**
 * `vredact download --stats <interval>` with its stderr in a log: a plain progress line every
 * interval while files are on their way, as `redact --stats` prints, so a long download in cron
 * shows it is alive.
 */
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { isolatedEnv, runCli, tempDirPerTest } from '../helpers/cli.js';
import { until } from '../helpers/e2e.js';
import { startFileHost } from '../helpers/file-host.js';
import {
  type HoldingFileHost,
  savedFiles,
  seededWav,
  startHoldingFileHost,
} from '../helpers/holding-file-host.js';

const dir = tempDirPerTest('vredact-e2e-download-progress-');

let host: HoldingFileHost | undefined;
afterEach(async () => {
  await host?.close();
  host = undefined;
});

describe('download --stats', () => {
  it('prints a plain progress line on stderr while the files are held, and the counts at the end', async () => {
    host = await startHoldingFileHost(4);
    const env = isolatedEnv(join(dir.path, '.config'), {
      VREDACT_BASE_URL: host.baseUrl,
      VREDACT_TOKEN: 'vr_test_download_stats',
    });
    const run = runCli(['download', 'job1', '-c', '2', '-o', 'out', '--stats', '1s'], {
      env,
      cwd: dir.path,
      buffer: false,
    });
    let stderr = '';
    run.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    // Two files are held half-sent: the run is alive and says so, with what it has in flight.
    await until(async () => /^downloading 0 · 2 in flight · \d+:\d\d elapsed$/m.test(stderr), 30_000);
    host.release();
    const result = await run;
    expect(result.exitCode).toBe(0);
    expect(stderr).toMatch(/^4 downloaded, 0 skipped, 0 failed$/m);
    // Plain lines for a log: no escape sequence, no carriage return.
    expect(stderr).not.toMatch(/[\u001b\r]/);
    expect(await savedFiles(join(dir.path, 'out'), host)).toEqual({
      names: ['f0.wav', 'f1.wav', 'f2.wav', 'f3.wav'],
      whole: true,
    });
  }, 60_000);

  it('--quiet --stats (a cron log): ends with the counts line; --quiet alone prints none', async () => {
    const files = { 'a.wav': seededWav(1), 'b.wav': seededWav(2) };
    const server = await startFileHost(files);
    try {
      const env = isolatedEnv(join(dir.path, '.config'), {
        VREDACT_BASE_URL: server.baseUrl,
        VREDACT_TOKEN: 'vr_test_download_quiet_stats',
      });
      const night = ['download', 'job1', '-o', 'out', '--quiet', '--stats', '1h'];
      const first = await runCli(night, { env, cwd: dir.path });
      expect(first.exitCode).toBe(0);
      expect(String(first.stdout).split('\n').sort()).toEqual([
        join(dir.path, 'out', 'a.wav'),
        join(dir.path, 'out', 'b.wav'),
      ]);
      expect(first.stderr).toBe('2 downloaded, 0 skipped, 0 failed');

      // The next night skips both (no line each under --quiet) and still says how it ended.
      const second = await runCli(night, { env, cwd: dir.path });
      expect(second.exitCode).toBe(0);
      expect(second.stderr).toBe('0 downloaded, 2 skipped, 0 failed');

      const quietOnly = await runCli(['download', 'job1', '-o', 'out', '--quiet'], { env, cwd: dir.path });
      expect(quietOnly.exitCode).toBe(0);
      expect(quietOnly.stderr).toBe('');
    } finally {
      await server.close();
    }
  }, 60_000);
});
