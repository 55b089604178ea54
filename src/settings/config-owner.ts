/**
 * Who owns the config file and its folder. Whoever owns either can change where the token goes (a
 * base-url of their own in the file, or another file in its place), whatever the permission bits
 * say: as ssh's StrictModes does for `~/.ssh`, only this user and root may own them. A folder made
 * in a shared /tmp by another account and named by VREDACT_CONFIG_DIR was used without a word.
 */
import { lstatSync, statSync } from 'node:fs';
import { dirname, isAbsolute } from 'node:path';

/** The owners of a path: of a symbolic link and of what it points to (both can re-point it). */
export type OwnersOf = (path: string) => number[];

export interface ForeignOwner {
  what: 'folder' | 'file';
  path: string;
  uid: number;
}

const ROOT_UID = 0;

function ownersOnDisk(path: string): number[] {
  const owners: number[] = [];
  for (const look of [lstatSync, statSync]) {
    try {
      owners.push(look(path).uid);
    } catch {
      // Not there (or not reachable): nothing of it is used.
    }
  }
  return owners;
}

/** This process's user (undefined where users have no ids: Windows), and how owners are read. */
export interface OwnerProbe {
  uid: number | undefined;
  ownersOf: OwnersOf;
}

const onDisk = (): OwnerProbe => ({ uid: process.getuid?.(), ownersOf: ownersOnDisk });

/**
 * The config file's folder and the file itself, each when a user other than this one and root owns
 * it; none where users have no ids or the store is no file (an in-memory store's path).
 */
export function foreignConfigOwners(path: string, probe: OwnerProbe = onDisk()): ForeignOwner[] {
  const { uid, ownersOf } = probe;
  if (uid === undefined || !isAbsolute(path)) return [];
  const found: ForeignOwner[] = [];
  for (const [what, at] of [
    ['folder', dirname(path)],
    ['file', path],
  ] as const) {
    const foreign = ownersOf(at).find((owner) => owner !== uid && owner !== ROOT_UID);
    if (foreign !== undefined) found.push({ what, path: at, uid: foreign });
  }
  return found;
}
