import { chown, lchown, mkdir, symlink } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { untrustedFolderLink } from '../../src/settings/config-folder-link.js';
import { tempDirPerTest } from '../helpers/cli.js';

const dir = tempDirPerTest('vredact-config-folder-link-');
const USER = 4242;
const THIRD = 4343;
const asRoot = process.getuid?.() === 0;

/** A folder made under the test's folder, owned by `uid`. */
async function folder(uid: number, ...names: string[]): Promise<string> {
  const path = join(dir.path, ...names);
  await mkdir(path, { recursive: true });
  await chown(path, uid, uid);
  return path;
}

async function link(to: string, at: string, uid: number): Promise<void> {
  await symlink(to, at);
  await lchown(at, uid, uid);
}

describe.skipIf(!asRoot)('untrustedFolderLink', () => {
  it("refuses a link in a user's home to a folder of root's, at the config folder or above it", async () => {
    const home = await folder(USER, 'home');
    const roots = await folder(0, 'roots', 'vredact');
    await folder(USER, 'home', '.config');
    await link(roots, join(home, '.config', 'vredact'), USER);
    const path = join(home, '.config', 'vredact', 'config.json');
    expect(untrustedFolderLink(path, 0, home)).toEqual({
      path: join(home, '.config', 'vredact'),
      homeOwner: USER,
      folderOwner: 0,
    });
    const other = await folder(USER, 'home2');
    await link(join(dir.path, 'roots'), join(other, '.config'), USER);
    expect(untrustedFolderLink(join(other, '.config', 'vredact', 'config.json'), 0, other)).toEqual({
      path: join(other, '.config'),
      homeOwner: USER,
      folderOwner: 0,
    });
  });

  it("refuses another user's link, even to the home owner's folder", async () => {
    const home = await folder(USER, 'home');
    const own = await folder(USER, 'home', 'dots');
    await link(own, join(home, '.config'), THIRD);
    expect(untrustedFolderLink(join(home, '.config', 'vredact', 'config.json'), 0, home)).toEqual({
      path: join(home, '.config'),
      homeOwner: USER,
      linkOwner: THIRD,
    });
  });

  it("takes the home owner's (or root's) link to a folder of theirs; not root's concern otherwise", async () => {
    const home = await folder(USER, 'home');
    const own = await folder(USER, 'home', 'dots', 'config');
    await link(own, join(home, '.config'), USER);
    const path = join(home, '.config', 'vredact', 'config.json');
    expect(untrustedFolderLink(path, 0, home)).toBeUndefined();
    const byRoot = await folder(USER, 'home3');
    await link(own, join(byRoot, '.config'), 0);
    expect(untrustedFolderLink(join(byRoot, '.config', 'vredact', 'config.json'), 0, byRoot)).toBeUndefined();
    // Any user but root, a home of root's, and a config folder outside the home are not looked at.
    await link(join(dir.path, 'roots'), join(home, 'elsewhere'), THIRD);
    expect(untrustedFolderLink(join(home, 'elsewhere', 'x', 'config.json'), USER, home)).toBeUndefined();
    const rootsHome = await folder(0, 'root-home');
    await link(await folder(THIRD, 'thirds'), join(rootsHome, '.config'), THIRD);
    expect(untrustedFolderLink(join(rootsHome, '.config', 'v', 'config.json'), 0, rootsHome)).toBeUndefined();
    expect(untrustedFolderLink(join(dir.path, 'thirds', 'config.json'), 0, home)).toBeUndefined();
  });
});
