/**
 * The folders above the config file's folder, up to the home folder (to `/` for a folder outside
 * it), as ssh's StrictModes checks those above `~/.ssh`: whoever owns one, or may write in one, can
 * move the config file's folder away and put one of theirs in its place, with a base-url of their
 * own. The rule is the one for the folder itself: owned by this user or root (or sudo's user), and
 * writable by no one else unless the sticky bit keeps them from renaming what is not theirs (`/tmp`).
 * ssh has no such exception; a sticky folder cannot be used to swap another user's entry. A folder
 * that others may write in is no risk below one of this user's that they cannot search (a home folder
 * of mode 0700, as some systems make it): they cannot reach it. Said on every command, the warning of
 * ~/.config of mode 0775 under such a home (a umask of 002, as user-private groups have) was a false
 * alarm.
 */
import { statSync } from 'node:fs';
import { dirname, isAbsolute } from 'node:path';
import { isTrustedOwner, type OwnerProbe, ownerProbeOnDisk } from './config-owner.js';
import { homeFolder } from './home-path.js';

export type UnsafeParent = { path: string; uid: number } | { path: string; mode: number };

/** A folder's permission bits with the sticky bit, or undefined when it cannot be read. */
export type ModeOf = (path: string) => number | undefined;

function modeOnDisk(path: string): number | undefined {
  try {
    return statSync(path).mode & 0o7777;
  } catch {
    return undefined;
  }
}

/** Each folder above the config file's folder that another user owns or may write in, lowest first. */
export function unsafeConfigParents(
  path: string,
  probe: OwnerProbe = ownerProbeOnDisk(),
  modeOf: ModeOf = modeOnDisk,
  // None known (HOME unset, no passwd entry): every folder up to `/` is checked.
  home: string | undefined = homeFolder(),
): UnsafeParent[] {
  // A config folder that is the home folder itself has nothing above it to check.
  if (probe.uid === undefined || !isAbsolute(path) || dirname(path) === home) return [];
  let found: UnsafeParent[] = [];
  for (let at = dirname(dirname(path)); ; at = dirname(at)) {
    const foreign = probe.ownersOf(at).find((owner) => !isTrustedOwner(probe, owner));
    const mode = modeOf(at);
    if (foreign !== undefined) found.push({ path: at, uid: foreign });
    else if (mode !== undefined && mode & 0o022 && !(mode & 0o1000))
      found.push({ path: at, mode: mode & 0o777 });
    else if (mode !== undefined && !(mode & 0o011)) found = found.filter((one) => 'uid' in one);
    if (at === home || at === dirname(at)) return found;
  }
}
