/** `vredact redact` and its state folder: a `.vredact` that leads outside the output folder is refused. */
import { mkdir, readdir, symlink } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FIXTURES, isolatedEnv, runCli, tempDirPerTest } from '../helpers/cli.js';
import { startScriptedServer } from '../helpers/scripted-server.js';

const dir = tempDirPerTest('vredact-e2e-local-fs-');

describe('redact and a symbolic link out of the output folder', () => {
  it('refuses a .vredact folder that leads elsewhere, before anything is sent', async () => {
    const server = await startScriptedServer((_req, res) => {
      res.writeHead(500);
      res.end();
    });
    try {
      const out = join(dir.path, 'out');
      const elsewhere = join(dir.path, 'elsewhere');
      await mkdir(out);
      await mkdir(elsewhere);
      await symlink(elsewhere, join(out, '.vredact'));
      const result = await runCli(['redact', join(FIXTURES, 'speech-16bit.wav'), '-o', out], {
        env: isolatedEnv(join(dir.path, 'config'), {
          VREDACT_BASE_URL: server.baseUrl,
          VREDACT_TOKEN: 'vr_test_local_fs',
        }),
      });
      expect(result.exitCode).toBe(1);
      expect(result.stderr).toContain(
        `refusing to write through a symbolic link that leads outside the output folder: ${join(out, '.vredact')}`,
      );
      expect(server.received).toHaveLength(0);
      expect(await readdir(elsewhere)).toEqual([]);
    } finally {
      await server.close();
    }
  });
});
