/**
 * `vredact redact` and local file-system trouble: a `.vredact` or an output sub-folder that leads
 * outside the output folder is refused, and a read-only output folder or journal is exit 2 before
 * anything is sent.
 */
import { chmod, copyFile, mkdir, readdir, readFile, stat, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FIXTURES, isolatedEnv, runCli, tempDirPerTest } from '../helpers/cli.js';
import { MOUNT_SKIP_REASON, tryMountTmpfs } from '../helpers/mount.js';
import { changedWav } from '../helpers/result-wav.js';
import { startScriptedServer } from '../helpers/scripted-server.js';
import { startSandboxProcess } from '../helpers/sandbox.js';
import { PERMISSIONS_SKIP_REASON, permissionBitsPrefix, runCliUnder } from '../helpers/unprivileged.js';

const dir = tempDirPerTest('vredact-e2e-local-fs-');

describe('redact and the file system of its output folder', () => {
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
      const modeBefore = (await stat(elsewhere)).mode;
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
      // Not made private through the link either (it was, to 0700, before the refusal).
      expect((await stat(elsewhere)).mode).toBe(modeBefore);
    } finally {
      await server.close();
    }
  });

  it('refuses a journal that is a symbolic link, before anything is sent, and leaves what it leads to as it was', async () => {
    const server = await startScriptedServer((_req, res) => {
      res.writeHead(500);
      res.end();
    });
    try {
      const out = join(dir.path, 'out');
      const elsewhere = join(dir.path, 'elsewhere.conf');
      const journal = join(out, '.vredact', 'journal.jsonl');
      await mkdir(join(out, '.vredact'), { recursive: true, mode: 0o700 });
      await writeFile(elsewhere, 'setting = 1\n', { mode: 0o644 });
      await chmod(elsewhere, 0o644);
      await symlink(elsewhere, journal);
      const env = isolatedEnv(join(dir.path, 'config'), {
        VREDACT_BASE_URL: server.baseUrl,
        VREDACT_TOKEN: 'vr_test_local_fs',
      });
      const result = await runCli(['redact', join(FIXTURES, 'speech-16bit.wav'), '-o', out], { env });
      // The run appended its lines to the file the link led to, and made it 0600 (as root, any file).
      expect(result.exitCode).toBe(2);
      expect(String(result.stderr)).toContain(
        `error: cannot write the journal ${journal}: it is a symbolic link (to ${elsewhere})`,
      );
      expect(server.received).toHaveLength(0);
      expect(await readFile(elsewhere, 'utf8')).toBe('setting = 1\n');
      expect((await stat(elsewhere)).mode & 0o777).toBe(0o644);
      // A shard's journal the same way.
      await symlink(elsewhere, join(out, '.vredact', 'journal.2-of-2.jsonl'));
      const shard = await runCli(
        ['redact', join(FIXTURES, 'speech-16bit.wav'), '-o', out, '--shard', '2/2'],
        { env },
      );
      expect(shard.exitCode).toBe(2);
      expect(String(shard.stderr)).toContain(`journal.2-of-2.jsonl: it is a symbolic link (to ${elsewhere})`);
      expect(await readFile(elsewhere, 'utf8')).toBe('setting = 1\n');
      expect(server.received).toHaveLength(0);
    } finally {
      await server.close();
    }
  });

  it('a state folder that is not a folder is exit 2, saying so, before anything is sent', async () => {
    const server = await startScriptedServer((_req, res) => {
      res.writeHead(500);
      res.end();
    });
    try {
      const out = join(dir.path, 'out');
      await mkdir(out);
      await writeFile(join(out, '.vredact'), 'not a folder');
      const result = await runCli(['redact', join(FIXTURES, 'speech-16bit.wav'), '-o', out], {
        env: isolatedEnv(join(dir.path, 'config'), {
          VREDACT_BASE_URL: server.baseUrl,
          VREDACT_TOKEN: 'vr_test_local_fs',
        }),
      });
      expect(result.exitCode).toBe(2);
      // It read "EEXIST: file already exists, mkdir …", exit 1.
      expect(String(result.stderr)).toContain(
        `error: cannot use the state folder ${join(out, '.vredact')}: it is not a folder`,
      );
      expect(server.received).toHaveLength(0);
      expect(await readFile(join(out, '.vredact'), 'utf8')).toBe('not a folder');
      // A dry run says the same: it stopped on a raw "ENOTDIR: not a directory, scandir", exit 1.
      const dry = await runCli(['redact', join(FIXTURES, 'speech-16bit.wav'), '-o', out, '--dry-run'], {
        env: isolatedEnv(join(dir.path, 'config')),
      });
      expect(dry.exitCode).toBe(2);
      expect(String(dry.stderr)).toContain(
        `error: cannot use the state folder ${join(out, '.vredact')}: it is not a folder`,
      );
    } finally {
      await server.close();
    }
  });

  it('refuses to write an output through a sub-folder that links outside; the batch goes on', async () => {
    const wav = changedWav(await readFile(join(FIXTURES, 'speech-16bit.wav')));
    // The service answers every upload with the input's own audio, changed: a result that passes every check.
    const server = await startScriptedServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'audio/wav', 'content-length': wav.length });
      res.end(wav);
    });
    try {
      const out = join(dir.path, 'out');
      const elsewhere = join(dir.path, 'elsewhere');
      await mkdir(join(dir.path, 'in', 'sub'), { recursive: true });
      await mkdir(out);
      await mkdir(elsewhere);
      await copyFile(join(FIXTURES, 'speech-16bit.wav'), join(dir.path, 'in', 'sub', 'a.wav'));
      await copyFile(join(FIXTURES, 'speech-16bit.wav'), join(dir.path, 'in', 'b.wav'));
      await symlink(elsewhere, join(out, 'sub'));
      const result = await runCli(['redact', 'in', '-o', 'out', '-c', '1'], {
        cwd: dir.path,
        env: isolatedEnv(join(dir.path, 'config'), {
          VREDACT_BASE_URL: server.baseUrl,
          VREDACT_TOKEN: 'vr_test_local_fs',
        }),
      });
      expect(result.exitCode).toBe(1);
      expect(result.stdout).toMatch(/failed\tin\/sub\/a\.wav\t.*symbolic link that leads outside/);
      expect(result.stdout).toMatch(/done\tin\/b\.wav/);
      expect(await readdir(elsewhere)).toEqual([]);
      expect((await readdir(out)).filter((name) => name.endsWith('.wav'))).toEqual(['b.wav']);
    } finally {
      await server.close();
    }
  });

  it('a read-only output folder is exit 2 before anything is sent', async ({ skip }) => {
    const mounted = await tryMountTmpfs(join(dir.path, 'mnt'), '64k');
    if (!mounted) return skip(MOUNT_SKIP_REASON);
    const server = await startScriptedServer((_req, res) => {
      res.writeHead(500);
      res.end();
    });
    try {
      await mounted.readOnly();
      const result = await runCli(['redact', join(FIXTURES, 'speech-16bit.wav'), '-o', mounted.path], {
        env: isolatedEnv(join(dir.path, 'config'), {
          VREDACT_BASE_URL: server.baseUrl,
          VREDACT_TOKEN: 'vr_test_local_fs',
        }),
      });
      expect(result.exitCode).toBe(2);
      expect(result.stderr).toMatch(/read-only file system/);
      expect(server.received).toHaveLength(0);
    } finally {
      await server.close();
      await mounted.unmount();
    }
  });

  it('a journal that cannot be written is exit 2 before anything is sent, saying how to fix it', async ({
    skip,
  }) => {
    const prefix = permissionBitsPrefix();
    if (!prefix) return skip(PERMISSIONS_SKIP_REASON);
    const server = await startScriptedServer((_req, res) => {
      res.writeHead(500);
      res.end();
    });
    try {
      const out = join(dir.path, 'out');
      const journal = join(out, '.vredact', 'journal.jsonl');
      await mkdir(join(out, '.vredact'), { recursive: true, mode: 0o700 });
      await writeFile(journal, '', { mode: 0o400 });
      await chmod(journal, 0o400);
      const result = await runCliUnder(prefix, ['redact', join(FIXTURES, 'speech-16bit.wav'), '-o', out], {
        env: isolatedEnv(join(dir.path, 'config'), {
          VREDACT_BASE_URL: server.baseUrl,
          VREDACT_TOKEN: 'vr_test_local_fs',
        }),
      });
      // It was exit 1, as if some files had failed, advising another output folder.
      expect(result.exitCode).toBe(2);
      expect(String(result.stderr)).toContain(
        `error: cannot write the journal ${journal}: permission denied`,
      );
      expect(String(result.stderr)).toContain(`hint: make it writable (chmod 600 ${journal})`);
      expect(server.received).toHaveLength(0);
      expect((await stat(journal)).mode & 0o777).toBe(0o400);
      expect(await readdir(join(out, '.vredact'))).toEqual(['journal.jsonl']);
    } finally {
      await server.close();
    }
  });

  it('an output folder made in a folder one may write in but not read (a drop folder) is made and written, exit 0', async ({
    skip,
  }) => {
    const prefix = permissionBitsPrefix();
    if (!prefix) return skip(PERMISSIONS_SKIP_REASON);
    // A folder made is flushed into its parent, which needs the parent opened for reading: here it
    // cannot be, and the folder made must stand, as where a file system cannot flush folders.
    const drop = join(dir.path, 'drop');
    await mkdir(drop, { mode: 0o333 });
    await chmod(drop, 0o333);
    const sandbox = await startSandboxProcess();
    try {
      const out = join(drop, 'out');
      const result = await runCliUnder(prefix, ['redact', join(FIXTURES, 'speech-16bit.wav'), '-o', out], {
        env: isolatedEnv(join(dir.path, 'config'), {
          VREDACT_BASE_URL: sandbox.baseUrl,
          VREDACT_TOKEN: sandbox.token,
        }),
      });
      expect(result.exitCode, String(result.stderr)).toBe(0);
      expect((await stat(join(out, 'speech-16bit.wav'))).size).toBeGreaterThan(44);
    } finally {
      await sandbox.stop();
      await chmod(drop, 0o755);
    }
  });
});
