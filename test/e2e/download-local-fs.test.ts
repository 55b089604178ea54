/**
 * `vredact download` meets local file-system trouble: a read-only output folder or one a file stands
 * in the way of (exit 2, nothing sent), a folder in a file's place (that file fails, unfetched), a full disk (one file-system error naming the path, not fetched again, nothing new started,
 * exit 1), and its own leftovers from dead runs (swept).
 */
import { mkdir, readdir, readFile, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { isolatedEnv, runCli, tempDirPerTest } from '../helpers/cli.js';
import { startFileHost } from '../helpers/file-host.js';
import { fillUp, MOUNT_SKIP_REASON, tryMountTmpfs } from '../helpers/mount.js';
import { OUR_SPACE_TAG, temporaryNameOf } from '../helpers/process-space.js';
import { resultWav } from '../helpers/result-wav.js';
import { expectFileBytes } from '../helpers/same-bytes.js';

const dir = tempDirPerTest('vredact-e2e-download-fs-');
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function host(files: Record<string, Buffer>) {
  const server = await startFileHost(files);
  cleanups.push(() => server.close());
  const env = isolatedEnv(join(dir.path, 'config'), {
    VREDACT_BASE_URL: server.baseUrl,
    VREDACT_TOKEN: 'vr_test_download_fs',
    VREDACT_CONCURRENCY: '1',
  });
  return { server, env };
}

async function mount(size: string) {
  const mounted = await tryMountTmpfs(join(dir.path, 'mnt'), size);
  if (mounted) cleanups.push(() => mounted.unmount());
  return mounted;
}

describe('download and the local file system', () => {
  it('a read-only output folder is exit 2 before anything is sent', async ({ skip }) => {
    const mounted = await mount('64k');
    if (!mounted) return skip(MOUNT_SKIP_REASON);
    await mounted.readOnly();
    const { server, env } = await host({ 'a.wav': resultWav(10) });
    for (const out of [mounted.path, join(mounted.path, 'new')]) {
      const result = await runCli(['download', 'job1', '-o', out], { env });
      expect(result.exitCode).toBe(2);
      expect(result.stderr).toContain(out);
      expect(result.stderr).toMatch(/read-only file system/);
    }
    expect(server.received).toHaveLength(0);
  });

  it('an output folder that a file or a broken link stands in the way of is exit 2, naming what is there', async () => {
    const { server, env } = await host({ 'a.wav': resultWav(10) });
    const file = join(dir.path, 'notes');
    await writeFile(file, 'not a folder');
    await symlink(join(dir.path, 'gone'), join(dir.path, 'link'));
    const cases = [
      // It said "…/notes/sub: it is not a folder", of the folder that was not there.
      [join(file, 'sub'), `the file ${file} is in the way`],
      [file, 'it is not a folder'],
      // It said "it is not a folder" of a link to a folder that is not there.
      [join(dir.path, 'link'), `it is a symbolic link to ${join(dir.path, 'gone')}, which does not exist`],
      // It said "the file …/link is in the way" of a link below which a folder was asked for.
      [
        join(dir.path, 'link', 'sub'),
        `${join(dir.path, 'link')} is a symbolic link to ${join(dir.path, 'gone')}, which does not exist`,
      ],
    ];
    for (const [out, reason] of cases) {
      const result = await runCli(['download', 'job1', '-o', out as string], { env });
      expect(result.exitCode).toBe(2);
      expect(String(result.stderr).split('\n')[0]).toBe(
        `error: cannot create the output folder ${out}: ${reason}`,
      );
    }
    expect(server.received).toHaveLength(0);
    expect(await readFile(file, 'utf8')).toBe('not a folder');
  });

  it("a folder in a file's place fails that file unfetched, with --overwrite too; the rest is saved", async () => {
    const { server, env } = await host({ 'a.wav': resultWav(10, 1), 'b.wav': resultWav(10, 2) });
    const out = join(dir.path, 'out');
    await mkdir(join(out, 'a.wav'), { recursive: true });
    for (const extra of [[], ['--overwrite']]) {
      const result = await runCli(['download', 'job1', 'a.wav', 'b.wav', '-o', out, ...extra], { env });
      expect(result.exitCode).toBe(1);
      expect(result.stdout).toBe(join(out, 'b.wav'));
      expect(result.stderr).toContain(
        'error: a.wav: a folder of that name is in the output folder, so the file cannot be saved there',
      );
    }
    expect(server.fileGets('a.wav')).toBe(0);
    expect(await readdir(join(out, 'a.wav'))).toEqual([]);
    await expectFileBytes(join(out, 'b.wav'), resultWav(10, 2));
  });

  it('a full disk is one file-system error naming the path; the file is not fetched again and nothing new starts', async ({
    skip,
  }) => {
    const mounted = await mount('16m');
    if (!mounted) return skip(MOUNT_SKIP_REASON);
    const big = resultWav(5 * 1024 * 1024, 3);
    const files: Record<string, Buffer> = {
      'a.wav': big,
      'b.wav': resultWav(10, 3),
      'c.wav': resultWav(10, 3),
    };
    // Room for a.wav is claimed before its first byte is written (download-free-space.test.ts): here
    // another program fills the disk once its temporary file is there, so the write meets a full disk.
    const server = await startFileHost(files, async (name, res) => {
      const bytes = files[name] ?? Buffer.alloc(0);
      res.writeHead(200, { 'content-type': 'audio/wav' });
      if (name !== 'a.wav') return void res.end(bytes);
      res.write(bytes.subarray(0, 1024 * 1024));
      while (!(await readdir(mounted.path)).some((entry) => entry.endsWith('.vredact-partial')))
        await new Promise((resolve) => setTimeout(resolve, 20));
      await fillUp(join(mounted.path, 'other-program.bin'));
      res.end(bytes.subarray(1024 * 1024));
    });
    cleanups.push(() => server.close());
    const env = isolatedEnv(join(dir.path, 'config'), {
      VREDACT_BASE_URL: server.baseUrl,
      VREDACT_TOKEN: 'vr_test_download_fs',
      VREDACT_CONCURRENCY: '1',
    });
    const result = await runCli(['download', 'job1', 'a.wav', 'b.wav', 'c.wav', '-o', mounted.path], { env });
    expect(result.exitCode).toBe(1);
    const path = join(mounted.path, 'a.wav');
    expect(String(result.stderr).split(`writing ${path}: no space left on the device`)).toHaveLength(2);
    expect(result.stderr).not.toMatch(/network error/);
    expect(result.stderr).toMatch(/stopped after a file-system problem: 2 file\(s\) not started/);
    expect(server.fileGets('a.wav')).toBe(1);
    expect(server.fileGets('b.wav') + server.fileGets('c.wav')).toBe(0);
    expect(await readdir(mounted.path)).toEqual(['other-program.bin']);
  });

  it('sweeps the leftovers of dead downloads, never those of a live one', async () => {
    const out = join(dir.path, 'out');
    await mkdir(out);
    // Both of this process space, where a pid tells (other spaces': temporary-files-spaces.test.ts).
    const dead = temporaryNameOf(2 ** 30, OUR_SPACE_TAG, '0');
    const live = temporaryNameOf(process.pid, OUR_SPACE_TAG, '1');
    await writeFile(join(out, dead), 'left by a killed run');
    await writeFile(join(out, live), 'being written');
    const { env } = await host({ 'a.wav': resultWav(10, 1) });
    const result = await runCli(['download', 'job1', 'a.wav', '-o', out], { env });
    expect(result.exitCode).toBe(0);
    expect((await readdir(out)).sort()).toEqual([live, 'a.wav'].sort());
    await expectFileBytes(join(out, 'a.wav'), resultWav(10, 1));
  });
});
