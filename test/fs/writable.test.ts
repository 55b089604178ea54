import { chmod, mkdir, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { UsageError } from '../../src/errors.js';
import { checkOutputFolderWritable } from '../../src/fs/writable.js';
import { caselessLstat } from '../helpers/caseless.js';
import { tempDirPerTest } from '../helpers/cli.js';
import { MOUNT_SKIP_REASON, tryMountTmpfs } from '../helpers/mount.js';

const dir = tempDirPerTest('vredact-writable-');

/** The probe's failure, injected where no read-only mount can be made and root ignores permissions. */
const inject: { probeCode?: string } = {};
afterEach(() => {
  delete inject.probeCode;
});
vi.mock('node:fs/promises', async (importOriginal) => {
  const real = await importOriginal<typeof import('node:fs/promises')>();
  return {
    ...real,
    open: async (...args: Parameters<typeof real.open>) => {
      if (inject.probeCode && String(args[0]).endsWith('.vredact-partial')) {
        throw Object.assign(new Error(`${inject.probeCode}: injected`), { code: inject.probeCode });
      }
      return real.open(...args);
    },
  };
});

describe('checkOutputFolderWritable', () => {
  it('creates a missing folder and leaves nothing behind', async () => {
    const out = join(dir.path, 'a', 'b');
    await checkOutputFolderWritable(out);
    expect(await readdir(out)).toEqual([]);
  });

  it('tells whether a fresh, empty folder ignores letter case, by its own probe file: no name of the user is needed', async () => {
    const out = join(dir.path, 'fresh');
    expect(await checkOutputFolderWritable(out)).toEqual({ ignoresCase: false });
    const share = join(dir.path, 'share');
    expect(await checkOutputFolderWritable(share, caselessLstat)).toEqual({ ignoresCase: true });
    expect(await readdir(out)).toEqual([]);
    expect(await readdir(share)).toEqual([]);
  });

  it('refuses a file where the folder should be (exit 2, naming it)', async () => {
    const out = join(dir.path, 'file');
    await writeFile(out, 'x');
    const refused = checkOutputFolderWritable(out);
    await expect(refused).rejects.toBeInstanceOf(UsageError);
    await expect(refused).rejects.toThrow(`cannot create the output folder ${out}: it is not a folder`);
  });

  it('refuses a read-only folder (exit 2, naming it and the reason)', async ({ skip }) => {
    const mounted = await tryMountTmpfs(join(dir.path, 'ro'));
    if (!mounted) return skip(MOUNT_SKIP_REASON);
    try {
      await mounted.readOnly();
      const refused = checkOutputFolderWritable(mounted.path);
      await expect(refused).rejects.toMatchObject({ exitCode: 2 });
      await expect(refused).rejects.toThrow(
        `cannot write to the output folder ${mounted.path}: read-only file system`,
      );
      await expect(checkOutputFolderWritable(join(mounted.path, 'new'))).rejects.toThrow(
        /cannot create the output folder .*: read-only file system/,
      );
    } finally {
      await mounted.unmount();
    }
  });

  it('refuses a folder whose probe fails (injected: read-only, permission denied), exit 2', async () => {
    for (const [code, reason] of [
      ['EROFS', 'read-only file system'],
      ['EACCES', 'permission denied'],
    ] as const) {
      inject.probeCode = code;
      const refused = checkOutputFolderWritable(dir.path);
      await expect(refused).rejects.toBeInstanceOf(UsageError);
      await expect(refused).rejects.toThrow(`cannot write to the output folder ${dir.path}: ${reason}`);
      await expect(refused).rejects.toMatchObject({ hint: expect.stringMatching(/choose an output folder/) });
    }
  });

  it('refuses a folder whose path is too long for a file in it, saying to choose a shorter one, not to fix permissions', async () => {
    // Its own path fits in the 4,095 bytes a path may have; the probe's name (about 50 bytes) beside it does not.
    let out = dir.path;
    while (out.length < 4075) out = join(out, 'f'.repeat(Math.min(200, 4075 - out.length)));
    const tooDeep = join(out, 'x'.repeat(100));
    for (const folder of [out, tooDeep]) {
      const refused = checkOutputFolderWritable(folder);
      await expect(refused).rejects.toThrow(/: file name too long$/);
      await expect(refused).rejects.toMatchObject({
        hint: 'choose an output folder with a shorter path (-o)',
      });
    }
  });

  it('refuses a folder without write permission', async ({ skip }) => {
    if (process.getuid?.() === 0)
      return skip('root ignores permission bits (the read-only mount test covers it)');
    const out = join(dir.path, 'locked');
    await mkdir(out, { mode: 0o500 });
    try {
      await expect(checkOutputFolderWritable(out)).rejects.toThrow(/permission denied/);
    } finally {
      await chmod(out, 0o700);
    }
  });
});
