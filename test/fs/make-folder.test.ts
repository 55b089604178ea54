import { existsSync } from 'node:fs';
import { mkdir, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { asLocalFsError } from '../../src/fs/errors.js';
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

  it('answers the folders it made, top-down, and none that was there', async () => {
    expect(await makeFolder(join(dir.path, 'a', 'b'))).toEqual([
      join(dir.path, 'a'),
      join(dir.path, 'a', 'b'),
    ]);
    expect(await makeFolder(join(dir.path, 'a', 'b', 'c'))).toEqual([join(dir.path, 'a', 'b', 'c')]);
    expect(await makeFolder(join(dir.path, 'a'))).toEqual([]);
  });

  it('names the file in the way, at the folder or above it, with the file system’s code', async () => {
    const file = join(dir.path, 'file');
    await writeFile(file, 'x');
    await expect(makeFolder(file)).rejects.toMatchObject({ code: 'EEXIST', blocker: file });
    await expect(makeFolder(join(file, 'sub', 'deeper'))).rejects.toMatchObject({
      code: 'ENOTDIR',
      blocker: file,
    });
    const error = await makeFolder(join(file, 'sub')).catch((caught: unknown) => caught);
    expect((asLocalFsError(error, join(file, 'sub'), 'creating the folder') as Error).message).toBe(
      `creating the folder ${file}/sub: the file ${file} is in the way; move or rename it, then run again`,
    );
  });

  // Node.js's own recursive mkdir never returns there: a file system that answers ENOENT under a parent that exists.
  it.skipIf(!existsSync('/proc/self'))(
    'ends with ENOENT where a folder cannot be made under one that exists',
    async () => {
      await expect(makeFolder('/proc/vredact-no-such/sub')).rejects.toMatchObject({ code: 'ENOENT' });
    },
  );
});
