import { readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createPrivateFileExclusively } from '../../src/fs/exclusive-create.js';
import { tempDirPerTest } from '../helpers/cli.js';

const dir = tempDirPerTest('vredact-exclusive-');

describe('createPrivateFileExclusively', () => {
  it('creates the file whole, 0600, with nothing else left beside it', async () => {
    const path = join(dir.path, 'lock');
    expect(await createPrivateFileExclusively(path, 'content\n')).toBe(true);
    expect(await readFile(path, 'utf8')).toBe('content\n');
    expect((await stat(path)).mode & 0o777).toBe(0o600);
    expect(await readdir(dir.path)).toEqual(['lock']);
  });

  it('leaves an existing file as it is and says so', async () => {
    const path = join(dir.path, 'lock');
    await writeFile(path, 'theirs');
    expect(await createPrivateFileExclusively(path, 'mine')).toBe(false);
    expect(await readFile(path, 'utf8')).toBe('theirs');
    expect(await readdir(dir.path)).toEqual(['lock']);
  });

  it('passes the file system errors through as they are', async () => {
    await expect(createPrivateFileExclusively(join(dir.path, 'missing', 'lock'), 'x')).rejects.toMatchObject({
      code: 'ENOENT',
    });
  });
});
