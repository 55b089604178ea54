/**
 * Who owns the config file and its folder. Whoever owns either can change where the token goes (a
 * base-url of their own in the file, or another file in its place), whatever the permission bits
 * say: as ssh's StrictModes does for `~/.ssh`, only this user and root may own them. A folder made
 * in a shared /tmp by another account and named by VREDACT_CONFIG_DIR was used without a word.
 * Root run through sudo also trusts the user who ran sudo (SUDO_UID), as git does: `sudo vredact
 * login` with the home folder kept is that user's own config, not another's.
 */
import {
  closeSync,
  constants,
  fchmodSync,
  fchownSync,
  fstatSync,
  lstatSync,
  openSync,
  type Stats,
  statSync,
} from 'node:fs';
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
  /** The user who ran sudo, when this process is root run through it. */
  sudoUid?: number;
  ownersOf: OwnersOf;
}

/** SUDO_UID as a user id, when root was started by sudo; only root is given it, and only by sudo. */
export function sudoUidOf(uid: number | undefined, env: NodeJS.ProcessEnv): number | undefined {
  const text = env.SUDO_UID;
  if (uid !== ROOT_UID || text === undefined || !/^\d{1,10}$/.test(text)) return undefined;
  return Number(text);
}

export const ownerProbeOnDisk = (): OwnerProbe => {
  const uid = process.getuid?.();
  return { uid, sudoUid: sudoUidOf(uid, process.env), ownersOf: ownersOnDisk };
};

/** Whether `owner` may own what the config file's place depends on: this user, root, or sudo's user. */
export function isTrustedOwner(probe: OwnerProbe, owner: number): boolean {
  return owner === probe.uid || owner === ROOT_UID || owner === probe.sudoUid;
}

/**
 * The config file's folder and the file itself, each when a user other than this one and root owns
 * it; none where users have no ids or the store is no file (an in-memory store's path).
 */
export function foreignConfigOwners(path: string, probe: OwnerProbe = ownerProbeOnDisk()): ForeignOwner[] {
  const { uid, ownersOf } = probe;
  if (uid === undefined || !isAbsolute(path)) return [];
  const found: ForeignOwner[] = [];
  for (const [what, at] of [
    ['folder', dirname(path)],
    ['file', path],
  ] as const) {
    const foreign = ownersOf(at).find((owner) => !isTrustedOwner(probe, owner));
    if (foreign !== undefined) found.push({ what, path: at, uid: foreign });
  }
  return found;
}

/**
 * After the config file is written: it is made 0600 (conf applies the mode only to a file it creates;
 * one made by hand or by an older version may be wider, and it holds the token), and when root wrote
 * it, it is given to its folder's owner. Written in a folder of root's, a file another user owned
 * (atomic writes keep the owner) stayed theirs, and the warning that it was stayed after `login`,
 * which it told to run; written in a user's folder (sudo with their home folder), a new file was
 * root's, and unreadable to them. The folder's owner can replace the file anyway, so they gain
 * nothing. `path` is opened without following a link and without waiting (a FIFO swapped in would
 * hold root's command forever), and changed only when it is a regular file: never another file.
 */
export function secureWrittenConfig(path: string): void {
  const fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  try {
    const file = fstatSync(fd);
    if (!file.isFile()) return;
    fchmodSync(fd, 0o600);
    if (process.getuid?.() === ROOT_UID) giveToFolderOwner(fd, file, dirname(path));
  } finally {
    closeSync(fd);
  }
}

function giveToFolderOwner(fd: number, file: Stats, folderPath: string): void {
  try {
    const folder = statSync(folderPath);
    if (file.nlink === 1 && file.uid !== folder.uid) fchownSync(fd, folder.uid, folder.gid);
  } catch {
    // The file is written all the same (a file system without owners, root squashed on NFS): the
    // owner check that follows says whatever is still wrong with its owner.
  }
}
