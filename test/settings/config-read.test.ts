import { chown, lchown, mkdir, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readConfigFile } from '../../src/settings/config-read.js';
import { tempDirPerTest } from '../helpers/cli.js';

const dir = tempDirPerTest('vredact-config-read-');
const OTHER_UID = 4242;
const asRoot = process.getuid?.() === 0;

/** A config.json that is a link, owned by a user other than root (this one, or 4242 where this is root). */
async function linkedConfig(target: string): Promise<string> {
  const folder = join(dir.path, 'cfg');
  await mkdir(folder, { recursive: true });
  const path = join(folder, 'config.json');
  await symlink(target, path);
  if (asRoot) await lchown(path, OTHER_UID, OTHER_UID);
  return path;
}

describe.skipIf(process.platform === 'win32')('readConfigFile', () => {
  it('as root, does not read through a link another user owns: nothing of the file, even a broken one', async () => {
    const secret = join(dir.path, 'shadow');
    await writeFile(secret, 'root:$6$secret-hash:19000:0:99999:7:::\n');
    const path = await linkedConfig(secret);
    const read = readConfigFile(path, 0);
    expect(read.values).toEqual({});
    expect(read.refusedLink).toEqual({ path, owner: asRoot ? OTHER_UID : process.getuid?.() });
  });

  it("reads through a link for its owner (a dotfiles manager's), and for any user but root", async () => {
    const dotfile = join(dir.path, 'dotfiles.json');
    await writeFile(dotfile, JSON.stringify({ gender: 'f' }));
    const path = await linkedConfig(dotfile);
    const owner = asRoot ? OTHER_UID : process.getuid?.();
    expect(readConfigFile(path, owner)).toEqual({ values: { gender: 'f' } });
    expect(readConfigFile(path, 1234)).toEqual({ values: { gender: 'f' } });
  });

  it("as root, a file that is not JSON is said to be so without a word of it (reached through another user's folder link)", async () => {
    const path = join(dir.path, 'shadow-like', 'config.json');
    await mkdir(join(dir.path, 'shadow-like'));
    await writeFile(path, 'root:$6$secret-hash:19000:0:99999:7:::\n');
    const error = (() => {
      try {
        readConfigFile(path, 0);
      } catch (thrown) {
        return String(thrown);
      }
      return 'no error';
    })();
    expect(error).toContain(`the config file ${path} is not JSON`);
    expect(error).not.toMatch(/root|secret|\$6/);
    // Any other user is shown where the text went wrong, as before.
    expect(() => readConfigFile(path, 1000)).toThrow(/"root:\$6\$se/);
  });

  it('as root, reads a plain file and says a missing one holds nothing', async () => {
    const path = join(dir.path, 'config.json');
    expect(readConfigFile(path, 0)).toEqual({ values: {} });
    await writeFile(path, JSON.stringify({ concurrency: '3' }));
    expect(readConfigFile(path, 0)).toEqual({ values: { concurrency: '3' } });
  });
});

describe.skipIf(!asRoot)('readConfigFile as root run by sudo', () => {
  const THIRD_UID = 4343;

  async function ownedFile(name: string, uid: number, text: string): Promise<string> {
    const file = join(dir.path, name);
    await writeFile(file, text);
    await chown(file, uid, uid);
    return file;
  }

  it("reads through a link of sudo's user to a file of theirs or root's", async () => {
    const path = await linkedConfig(await ownedFile('theirs.json', OTHER_UID, '{"gender":"f"}'));
    expect(readConfigFile(path, 0, { sudoUid: OTHER_UID })).toEqual({ values: { gender: 'f' } });
    const rootsFile = join(dir.path, 'cfg', 'roots-config.json');
    await symlink(await ownedFile('roots.json', 0, '{"gender":"m"}'), rootsFile);
    await lchown(rootsFile, OTHER_UID, OTHER_UID);
    expect(readConfigFile(rootsFile, 0, { sudoUid: OTHER_UID })).toEqual({ values: { gender: 'm' } });
    // Without sudo (or another user's sudo), the link is refused as before.
    expect(readConfigFile(path, 0).refusedLink).toEqual({ path, owner: OTHER_UID });
    expect(readConfigFile(path, 0, { sudoUid: THIRD_UID }).refusedLink).toEqual({ path, owner: OTHER_UID });
  });

  it("does not read through it to a third user's file: nothing of it is used", async () => {
    const path = await linkedConfig(await ownedFile('third.json', THIRD_UID, '{"gender":"f"}'));
    expect(readConfigFile(path, 0, { sudoUid: OTHER_UID })).toEqual({
      values: {},
      refusedLink: { path, owner: THIRD_UID, linkedFile: true },
    });
  });
});
