/** Ctrl-C during `vredact download`: the transfer is aborted, its temporary file removed, exit 130. */
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { isolatedEnv, runCli, tempDirPerTest } from '../helpers/cli.js';
import { startFileHost } from '../helpers/file-host.js';

const dir = tempDirPerTest('vredact-e2e-download-int-');

/** Waits until `check` holds (polling; no timing is asserted, the test's timeout bounds it). */
async function until(check: () => Promise<boolean>): Promise<void> {
  while (!(await check())) await delay(50);
}

describe('download, interrupted', () => {
  it('SIGINT while a body trickles in leaves no partial file and exits 130', async () => {
    // Sends the headers and a first part of a long body, then holds the rest back. The part is
    // larger than what a writer gathers before its first write, so a partial file is on disk.
    const server = await startFileHost({}, (_name, res) => {
      res.writeHead(200, { 'content-type': 'audio/wav', 'content-length': String(10 * 1024 * 1024) });
      res.write(Buffer.alloc(1024 * 1024, 5));
    });
    try {
      const out = join(dir.path, 'out');
      const child = runCli(['download', 'job1', 'slow.wav', '-o', out], {
        env: isolatedEnv(join(dir.path, 'config'), {
          VREDACT_BASE_URL: server.baseUrl,
          VREDACT_TOKEN: 'vr_test_interrupt',
        }),
      });
      // The download's own partial file, with bytes in it (the folder's write check makes an empty one).
      await until(async () => {
        const names = await readdir(out).catch(() => [] as string[]);
        const sizes = await Promise.all(
          names
            .filter((name) => name.endsWith('.vredact-partial'))
            .map((name) =>
              stat(join(out, name)).then(
                (info) => info.size,
                () => 0,
              ),
            ),
        );
        return sizes.some((size) => size > 0);
      });
      child.kill('SIGINT');
      const result = await child;
      expect(result.exitCode, `signal ${String(result.signal)}; stderr: ${String(result.stderr)}`).toBe(130);
      expect(result.stderr).toMatch(/interrupted/);
      expect(await readdir(out)).toEqual([]);
      expect(server.fileGets('slow.wav')).toBe(1);
    } finally {
      await server.close();
    }
  });
});
