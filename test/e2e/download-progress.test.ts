/**
 * `vredact download --stats <interval>` with its stderr in a log: a plain progress line every
 * interval while files are on their way, as `redact --stats` prints, so a long download in cron
 * shows it is alive.
 */
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { isolatedEnv, runCli, tempDirPerTest } from '../helpers/cli.js';
import { until } from '../helpers/e2e.js';
import { type HoldingFileHost, savedFiles, startHoldingFileHost } from '../helpers/holding-file-host.js';

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
});
