/**
 * Folders root makes for the config file in a user's home folder (sudo keeping HOME: `sudo -E
 * vredact login`, or sudo's default on some systems) are given to that home's owner, as the file
 * written in them is (config-owner.ts): left root's, the user's next plain `vredact config set` could
 * not write in `~/.config/vredact`. The home's owner can replace them anyway, so they gain nothing.
 * Only folders this run made are given, each checked to be one: a folder of root's, reached through
 * no link (one swapped in on the way would have root give away whatever it points to), opened
 * without following one.
 */
import { closeSync, constants, fchownSync, fstatSync, openSync, realpathSync, statSync } from 'node:fs';
import { isAbsolute, join, relative } from 'node:path';
import { homeFolder } from './home-path.js';

const ROOT_UID = 0;

/** `made` (top-down, as makeFolder answers), as root, given to the owner of `home` when it is a user's. */
export function giveMadeConfigFolders(
  made: readonly string[],
  home: string | undefined = homeFolder(),
  uid: number | undefined = process.getuid?.(),
): void {
  if (uid !== ROOT_UID || home === undefined || made.length === 0) return;
  let owner: { uid: number; gid: number };
  let realHome: string;
  try {
    owner = statSync(home);
    realHome = realpathSync(home);
  } catch {
    return;
  }
  if (owner.uid === ROOT_UID) return;
  for (const folder of made) {
    const inHome = relative(home, folder);
    if (inHome === '' || inHome.startsWith('..') || isAbsolute(inHome)) continue;
    try {
      if (realpathSync(folder) !== join(realHome, inHome)) continue;
      giveFolder(folder, owner);
    } catch {
      // Not given (gone, or a file system without owners): the owner checks that follow say the rest.
    }
  }
}

function giveFolder(folder: string, owner: { uid: number; gid: number }): void {
  const fd = openSync(folder, constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW);
  try {
    const made = fstatSync(fd);
    if (made.isDirectory() && made.uid === ROOT_UID) fchownSync(fd, owner.uid, owner.gid);
  } finally {
    closeSync(fd);
  }
}
