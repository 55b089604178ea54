import { chown, lchown, mkdir, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { configWriteTarget } from '../../src/settings/config-link.js';
import { tempDirPerTest } from '../helpers/cli.js';

const dir = tempDirPerTest('vredact-config-link-');
const USER = 4242;
const THIRD = 4343;
const asRoot = process.getuid?.() === 0;

/** A config.json of `USER`'s that links to `name` in a folder of `folderUid`'s, a file of `fileUid`'s. */
async function linkTo(
  name: string,
  folderUid: number,
  fileUid: number,
): Promise<{ path: string; file: string }> {
  const folder = join(dir.path, name);
  await mkdir(folder);
  await chown(folder, folderUid, folderUid);
  const file = join(folder, 'vredact.json');
  await writeFile(file, '{}');
  await chown(file, fileUid, fileUid);
  const path = join(dir.path, `${name}-config.json`);
  await symlink(file, path);
  await lchown(path, USER, USER);
  return { path, file };
}

describe.skipIf(!asRoot)('configWriteTarget as root run by sudo', () => {
  it("writes through a link of sudo's user to a file of theirs in a folder of theirs", async () => {
    const { path, file } = await linkTo('dotfiles', USER, USER);
    expect(configWriteTarget(path, 0, USER)).toBe(file);
    expect(() => configWriteTarget(path, 0)).toThrow(/symbolic link owned by another user \(uid 4242\)/);
  });

  it("refuses a link of theirs to a file of root's or a third user's, or in a folder not theirs", async () => {
    for (const [name, folderUid, fileUid] of [
      ['roots', 0, 0],
      ['thirds', THIRD, THIRD],
      ['in-roots-folder', 0, USER],
    ] as const) {
      const { path, file } = await linkTo(name, folderUid, fileUid);
      expect(() => configWriteTarget(path, 0, USER), name).toThrow(
        `cannot write the config file ${path}: it is a symbolic link to ${file}, and root writes through a link of the user who ran sudo (uid ${USER}) only to a regular file of theirs in a folder of theirs`,
      );
    }
  });
});
