import { existsSync } from 'node:fs';
import { mkdir, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { makeFolder } from '../../src/fs/make-folder.js';
import { tempDirPerTest } from '../helpers/cli.js';

const dir = tempDirPerTest('vredact-make-folder-');

describe('makeFolder', () => {
  it('makes every missing folder on the way, with its mode, and takes a folder already there', async () => {
    const deep = join(dir.path, 'a', 'b', 'c');
    await makeFolder(deep, 0o700);
    expect((await stat(deep)).isDirectory()).toBe(true);
    expect((await stat(join(dir.path, 'a'))).mode & 0o777).toBe(0o700);
    await makeFolder(deep);
    await mkdir(join(dir.path, 'x'));
    await makeFolder(join(dir.path, 'x'));
  });

  it('gives the file system’s error where a file is in the way', async () => {
    await writeFile(join(dir.path, 'file'), 'x');
    await expect(makeFolder(join(dir.path, 'file'))).rejects.toMatchObject({ code: 'EEXIST' });
    await expect(makeFolder(join(dir.path, 'file', 'sub'))).rejects.toMatchObject({ code: 'ENOTDIR' });
  });

  // Node.js's own recursive mkdir never returns there: a file system that answers ENOENT under a parent that exists.
  it.skipIf(!existsSync('/proc/self'))(
    'ends with ENOENT where a folder cannot be made under one that exists',
    async () => {
      await expect(makeFolder('/proc/vredact-no-such/sub')).rejects.toMatchObject({ code: 'ENOENT' });
    },
  );
});
