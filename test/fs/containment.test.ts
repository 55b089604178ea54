import { mkdir, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  OutputFolder,
  OutsideOutputFolderError,
  resolveFolderInside,
  resolveInside,
} from '../../src/fs/containment.js';
import { LocalFsError } from '../../src/fs/errors.js';
import { tempDirPerTest } from '../helpers/cli.js';

const dir = tempDirPerTest('vredact-containment-');

describe('resolveInside', () => {
  it('gives the path below the output folder, existing or not', async () => {
    const out = join(dir.path, 'out');
    await mkdir(join(out, 'a'), { recursive: true });
    expect(await resolveInside(out, 'a/b/c.wav')).toBe(join(out, 'a', 'b', 'c.wav'));
    expect(await resolveInside(join(dir.path, 'not-yet'), 'x/y.wav')).toBe(
      join(dir.path, 'not-yet', 'x', 'y.wav'),
    );
  });

  it('refuses a folder that is a symbolic link leading outside the output folder, at any depth', async () => {
    const out = join(dir.path, 'out');
    const elsewhere = join(dir.path, 'elsewhere');
    await mkdir(join(out, 'a'), { recursive: true });
    await mkdir(join(elsewhere, 'deep'), { recursive: true });
    await symlink(elsewhere, join(out, 'sub'));
    await symlink(elsewhere, join(out, 'a', 'inner'));

    const refused = resolveInside(out, 'sub/x.wav');
    await expect(refused).rejects.toBeInstanceOf(OutsideOutputFolderError);
    await expect(refused).rejects.toBeInstanceOf(LocalFsError);
    await expect(refused).rejects.toThrow(
      `refusing to write through a symbolic link that leads outside the output folder: ${join(out, 'sub')}`,
    );
    await expect(resolveInside(out, 'a/inner/deep/x.wav')).rejects.toThrow(join(out, 'a', 'inner'));
    await expect(resolveFolderInside(out, 'sub')).rejects.toBeInstanceOf(OutsideOutputFolderError);
    await expect(resolveInside(out, 'sub/x.wav')).rejects.toMatchObject({ stopsBatch: false, exitCode: 1 });
    // What to do: never `-o` with the very output folder that was given.
    await expect(resolveFolderInside(out, 'sub')).rejects.toMatchObject({
      hint: 'replace the link with a real folder, or choose an output folder that no link leads out of',
    });
  });

  it('allows links that stay inside, and an output folder that is itself a link', async () => {
    const real = join(dir.path, 'real-out');
    await mkdir(join(real, 'kept'), { recursive: true });
    await symlink(join(real, 'kept'), join(real, 'alias'));
    const linkedOut = join(dir.path, 'out-link');
    await symlink(real, linkedOut);
    expect(await resolveInside(linkedOut, 'alias/x.wav')).toBe(join(linkedOut, 'alias', 'x.wav'));
    expect(await resolveInside(real, 'alias/x.wav')).toBe(join(real, 'alias', 'x.wav'));
  });

  it('refuses a dangling link and paths that climb out; a final link is replaced, not followed', async () => {
    const out = join(dir.path, 'out');
    await mkdir(out);
    await symlink(join(dir.path, 'gone'), join(out, 'dangling'));
    await expect(resolveInside(out, 'dangling/x.wav')).rejects.toThrow(/leads nowhere inside/);
    await expect(resolveInside(out, '../x.wav')).rejects.toBeInstanceOf(OutsideOutputFolderError);
    await expect(resolveInside(out, '/etc/x.wav')).rejects.toBeInstanceOf(OutsideOutputFolderError);
    await expect(resolveInside(out, 'a/..')).rejects.toBeInstanceOf(OutsideOutputFolderError);

    await writeFile(join(dir.path, 'secret.wav'), 'outside');
    await symlink(join(dir.path, 'secret.wav'), join(out, 'x.wav'));
    expect(await resolveInside(out, 'x.wav')).toBe(join(out, 'x.wav'));
  });
});

describe('OutputFolder', () => {
  it('gives the same paths as resolveInside, for files in new and existing folders', async () => {
    const out = join(dir.path, 'out');
    await mkdir(join(out, 'a'), { recursive: true });
    const folder = new OutputFolder(out);
    for (const rel of ['a/b/c.wav', 'a/b/d.wav', 'top.wav', 'a/e.wav']) {
      expect(await folder.resolve(rel)).toBe(await resolveInside(out, rel));
    }
  });

  it('refuses every file below a folder that links outside, each time, and goes on with others', async () => {
    const out = join(dir.path, 'out');
    const elsewhere = join(dir.path, 'elsewhere');
    await mkdir(out, { recursive: true });
    await mkdir(elsewhere, { recursive: true });
    await symlink(elsewhere, join(out, 'sub'));
    const folder = new OutputFolder(out);
    await expect(folder.resolve('sub/x.wav')).rejects.toBeInstanceOf(OutsideOutputFolderError);
    await expect(folder.resolve('sub/y.wav')).rejects.toBeInstanceOf(OutsideOutputFolderError);
    expect(await folder.resolve('ok/z.wav')).toBe(join(out, 'ok', 'z.wav'));
  });

  it('refuses names that are no file name, as resolveInside does', async () => {
    const folder = new OutputFolder(join(dir.path, 'out'));
    await expect(folder.resolve('a/..')).rejects.toBeInstanceOf(OutsideOutputFolderError);
    await expect(folder.resolve('../x.wav')).rejects.toBeInstanceOf(OutsideOutputFolderError);
  });
});
