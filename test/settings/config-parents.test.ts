import { describe, expect, it } from 'vitest';
import type { OwnerProbe } from '../../src/settings/config-owner.js';
import { unsafeConfigParents } from '../../src/settings/config-parents.js';

const ME = 1000;
const OTHER = 4242;
const ROOT = 0;
const HOME = '/home/me';
const PATH = '/home/me/.config/vredact/config.json';

/** Folders on a made-up disk: owner and mode of each; any folder not named is root's, 0755. */
function disk(folders: Record<string, [number, number]>, uid = ME, sudoUid?: number) {
  const at = (path: string) => folders[path] ?? [ROOT, 0o755];
  const probe: OwnerProbe = { uid, sudoUid, ownersOf: (path) => [at(path)[0], at(path)[0]] };
  return (path = PATH, home = HOME) => unsafeConfigParents(path, probe, (path) => at(path)[1], home);
}

describe('unsafeConfigParents', () => {
  it('says nothing of a home of its own and root-owned folders above it, private or not', () => {
    expect(disk({ [HOME]: [ME, 0o700], '/home/me/.config': [ME, 0o755] })()).toEqual([]);
    expect(disk({ [HOME]: [ME, 0o755] })()).toEqual([]);
  });

  it('names a folder above, up to the home folder, that another user owns or others may write in', () => {
    expect(disk({ [HOME]: [ME, 0o775], '/home/me/.config': [OTHER, 0o700] })()).toEqual([
      { path: '/home/me/.config', uid: OTHER },
      { path: HOME, mode: 0o775 },
    ]);
  });

  it("a folder others may write in below one of this user's that they cannot search is no risk", () => {
    // ~/.config of mode 0775 (a umask of 002) under a home folder of mode 0700: nobody else reaches it.
    expect(disk({ [HOME]: [ME, 0o700], '/home/me/.config': [ME, 0o775] })()).toEqual([]);
    // A home others may search (0750, 0755) does not hide it; nor does a folder of another user's.
    expect(disk({ [HOME]: [ME, 0o750], '/home/me/.config': [ME, 0o775] })()).toEqual([
      { path: '/home/me/.config', mode: 0o775 },
    ]);
    const path = '/srv/a/b/cfg/config.json';
    expect(disk({ '/srv/a': [OTHER, 0o700], '/srv/a/b': [ME, 0o777] })(path)).toEqual([
      { path: '/srv/a/b', mode: 0o777 },
      { path: '/srv/a', uid: OTHER },
    ]);
  });

  it('a sticky folder others may write in is no risk (they cannot rename what is not theirs): /tmp', () => {
    const check = disk({ '/tmp': [ROOT, 0o1777], '/tmp/x': [ME, 0o700] });
    expect(check('/tmp/x/cfg/config.json')).toEqual([]);
    expect(disk({ '/srv': [ROOT, 0o777] })('/srv/x/cfg/config.json')).toEqual([
      { path: '/srv', mode: 0o777 },
    ]);
  });

  it('stops at the home folder: what is above it is not asked of', () => {
    expect(disk({ '/home': [OTHER, 0o777], [HOME]: [ME, 0o700] })()).toEqual([]);
    // A config folder that is the home folder itself: its own checks say what there is to say.
    expect(disk({ '/home': [OTHER, 0o777] })(`${HOME}/config.json`)).toEqual([]);
  });

  it('outside the home folder, every folder up to / is asked of', () => {
    expect(disk({ '/': [OTHER, 0o755] })('/srv/x/cfg/config.json')).toEqual([{ path: '/', uid: OTHER }]);
  });

  it("trusts sudo's user under sudo; says nothing where users have no ids or of an in-memory store", () => {
    expect(disk({ [HOME]: [OTHER, 0o700] }, ROOT, OTHER)()).toEqual([]);
    expect(disk({ [HOME]: [OTHER, 0o700] }, ROOT)()).toEqual([{ path: HOME, uid: OTHER }]);
    expect(disk({ [HOME]: [OTHER, 0o777] })('(memory)')).toEqual([]);
  });
});
