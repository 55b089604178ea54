/**
 * A config file that is a symbolic link. Read through, as dotfiles managers link config files; written
 * through only when this user made the link. conf writes through a link (atomically renames its new
 * file over the link's target), so root, run with a user's config folder (sudo keeping HOME, or
 * VREDACT_CONFIG_DIR), rewrote whatever file that user had linked there (`/etc/…`) and made it 0600.
 * As ssh and git do with files another user could have planted, such a link is not written through.
 * Root run by sudo also takes the link of the user who ran it (SUDO_UID, config-owner.ts's rule):
 * their dotfiles link under `sudo -E` is their own config, which root refused, and the command then
 * had no base URL or token. It reads through it only to a file of theirs or root's (the opened file's
 * owner, so no swap in between counts), and writes through it only to a file of theirs in a folder
 * of theirs, which is then given back to them (config-owner.ts): never to a third user's file.
 */
import { lstatSync, realpathSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import { UsageError } from '../errors.js';
import { errnoCode } from '../fs/errors.js';

/**
 * The file a write of the config file at `path` changes: `path` itself, or the target of a link this
 * user owns. A usage error for a link another user owns, whatever it points to.
 */
export function configWriteTarget(
  path: string,
  uid: number | undefined = process.geteuid?.(),
  sudoUid?: number,
): string {
  let owner: number;
  try {
    const entry = lstatSync(path);
    if (!entry.isSymbolicLink()) return path;
    owner = entry.uid;
  } catch (error) {
    if (errnoCode(error) === 'ENOENT') return path;
    throw error;
  }
  if (uid === undefined || owner === uid) return realpathOr(path);
  if (owner === sudoUid) return sudoUsersTarget(path, sudoUid);
  throw new UsageError(
    `cannot write the config file ${path}: it is a symbolic link owned by another user (uid ${owner}), and vredact does not write through a link it cannot trust`,
    `remove the link (\`rm ${path}\`) and set the values again, run the command as that user, or point VREDACT_CONFIG_DIR at a folder of your own`,
  );
}

/** The file a link of sudo's user leads to, when it and its folder are theirs (a link to nothing: itself). */
function sudoUsersTarget(path: string, sudoUid: number): string {
  const target = realpathOr(path);
  if (target === path) return path;
  try {
    const file = lstatSync(target);
    if (file.isFile() && file.uid === sudoUid && statSync(dirname(target)).uid === sudoUid) return target;
  } catch {
    // Gone since, or its folder unreachable: not written.
  }
  throw new UsageError(
    `cannot write the config file ${path}: it is a symbolic link to ${target}, and root writes through a link of the user who ran sudo (uid ${sudoUid}) only to a regular file of theirs in a folder of theirs`,
    `run the command as that user (without sudo), give the file and its folder to them, or point VREDACT_CONFIG_DIR at a folder of your own`,
  );
}

/** A link to nothing is replaced by the new file, as conf does: its name is where the file goes. */
function realpathOr(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

/**
 * A config file that is a symbolic link root does not read through: another user owns it, or
 * (`linkedFile`) it is sudo's user's and the file it opened is a third user's.
 */
export interface ForeignLink {
  path: string;
  owner: number;
  linkedFile?: true;
}

/** How root reads the config file: following a link or not, and whose the opened file must be. */
export interface LinkLook {
  follow: boolean;
  refused?: ForeignLink;
  /** Set for a link of sudo's user: the owners the file it opens may have. */
  fileOwners?: readonly number[];
}

const ROOT_UID = 0;

/**
 * How root reads the config file at `path`: through a link of its own, without following any link
 * where it found none, and not at all through a link another user owns (their link in a config
 * folder root uses, by sudo or VREDACT_CONFIG_DIR: pointed at `/etc/shadow`, a parse error quoted a
 * line of it). Any other user reads through, as before: the permission bits stop what it may not read.
 */
export function foreignLinkToRoot(path: string, uid: number | undefined, sudoUid?: number): LinkLook {
  if (uid !== ROOT_UID) return { follow: true };
  let entry;
  try {
    entry = lstatSync(path);
  } catch {
    // Not there, or not reachable: the read says which.
    return { follow: false };
  }
  if (!entry.isSymbolicLink()) return { follow: false };
  if (entry.uid === uid) return { follow: true };
  if (entry.uid === sudoUid) return { follow: true, fileOwners: [sudoUid, ROOT_UID] };
  return { follow: false, refused: { path, owner: entry.uid } };
}

/** The warning of a config file root did not read: one line, naming the link and what to do. */
export function refusedLinkLine({ path, owner, linkedFile }: ForeignLink): string {
  if (linkedFile)
    return `the config file ${path} is a symbolic link of the user who ran sudo to a file owned by another user (uid ${owner}): root does not read through it, and no setting of it is used; point the link at a file of your own, or run the command without sudo`;
  return `the config file ${path} is a symbolic link owned by another user (uid ${owner}): root does not read through it, and no setting of it is used; remove the link (\`rm ${path}\`), or run the command as that user`;
}
