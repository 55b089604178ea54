import { chown, lstat, mkdir, symlink } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { makeFolder } from '../../src/fs/make-folder.js';
import { giveMadeConfigFolders } from '../../src/settings/config-folder-owner.js';
import { tempDirPerTest } from '../helpers/cli.js';

const dir = tempDirPerTest('vredact-config-folder-owner-');
const USER_UID = 4242;
const asRoot = process.platform !== 'win32' && process.getuid?.() === 0;

const uidOf = async (path: string) => (await lstat(path)).uid;

/** A home folder of USER_UID's, as sudo keeping HOME has it. */
async function usersHome(name: string): Promise<string> {
  const home = join(dir.path, name);
  await mkdir(home);
  await chown(home, USER_UID, USER_UID);
  return home;
}

describe.skipIf(!asRoot)('giveMadeConfigFolders, as root', () => {
  it("gives the folders made for the config in a user's home to that user, and none that was there", async () => {
    const home = await usersHome('home');
    await mkdir(join(home, '.config'));
    const made = await makeFolder(join(home, '.config', 'vredact', 'sub'), 0o700);
    expect(made).toEqual([join(home, '.config', 'vredact'), join(home, '.config', 'vredact', 'sub')]);
    giveMadeConfigFolders(made, home, 0);
    expect(await uidOf(join(home, '.config'))).toBe(0);
    expect(await uidOf(join(home, '.config', 'vredact'))).toBe(USER_UID);
    expect(await uidOf(join(home, '.config', 'vredact', 'sub'))).toBe(USER_UID);
  });

  it("gives nothing outside the home, in root's own home, or run by another user", async () => {
    const home = await usersHome('home');
    const outside = join(dir.path, 'elsewhere');
    await mkdir(outside);
    giveMadeConfigFolders([outside], home, 0);
    expect(await uidOf(outside)).toBe(0);
    const inside = join(home, 'cfg');
    await mkdir(inside);
    giveMadeConfigFolders([inside], dir.path, 0);
    giveMadeConfigFolders([inside], home, 1000);
    expect(await uidOf(inside)).toBe(0);
  });

  it('gives nothing reached through a link: a folder swapped for one after it was made', async () => {
    const home = await usersHome('home');
    const system = join(dir.path, 'system');
    await mkdir(join(system, 'vredact'), { recursive: true });
    // The user put a link where root had made ~/.config: ~/.config/vredact is root's system/vredact.
    await symlink(system, join(home, '.config'));
    giveMadeConfigFolders([join(home, '.config'), join(home, '.config', 'vredact')], home, 0);
    expect(await uidOf(join(system, 'vredact'))).toBe(0);
    expect(await uidOf(system)).toBe(0);
    const link = join(home, 'linked');
    await symlink(system, link);
    giveMadeConfigFolders([link], home, 0);
    expect(await uidOf(system)).toBe(0);
  });
});
