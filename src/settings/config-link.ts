/**
 * A config file that is a symbolic link. Read through, as dotfiles managers link config files; written
 * through only when this user made the link. conf writes through a link (atomically renames its new
 * file over the link's target), so root, run with a user's config folder (sudo keeping HOME, or
 * VREDACT_CONFIG_DIR), rewrote whatever file that user had linked there (`/etc/…`) and made it 0600.
 * As ssh and git do with files another user could have planted, such a link is not written through.
 */
import { lstatSync, realpathSync } from 'node:fs';
import { UsageError } from '../errors.js';
import { errnoCode } from '../fs/errors.js';

/**
 * The file a write of the config file at `path` changes: `path` itself, or the target of a link this
 * user owns. A usage error for a link another user owns, whatever it points to.
 */
export function configWriteTarget(path: string, uid: number | undefined = process.geteuid?.()): string {
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
  throw new UsageError(
    `cannot write the config file ${path}: it is a symbolic link owned by another user (uid ${owner}), and vredact does not write through a link it cannot trust`,
    `remove the link (\`rm ${path}\`) and set the values again, run the command as that user, or point VREDACT_CONFIG_DIR at a folder of your own`,
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

/** A config file that is a symbolic link another user owns, which root does not read through. */
export interface ForeignLink {
  path: string;
  owner: number;
}

const ROOT_UID = 0;

/**
 * How root reads the config file at `path`: through a link of its own, without following any link
 * where it found none, and not at all through a link another user owns (their link in a config
 * folder root uses, by sudo or VREDACT_CONFIG_DIR: pointed at `/etc/shadow`, a parse error quoted a
 * line of it). Any other user reads through, as before: the permission bits stop what it may not read.
 */
export function foreignLinkToRoot(
  path: string,
  uid: number | undefined,
): { follow: boolean; refused?: ForeignLink } {
  if (uid !== ROOT_UID) return { follow: true };
  let entry;
  try {
    entry = lstatSync(path);
  } catch {
    // Not there, or not reachable: the read says which.
    return { follow: false };
  }
  if (!entry.isSymbolicLink()) return { follow: false };
  return entry.uid === uid ? { follow: true } : { follow: false, refused: { path, owner: entry.uid } };
}

/** The warning of a config file root did not read: one line, naming the link and what to do. */
export function refusedLinkLine({ path, owner }: ForeignLink): string {
  return `the config file ${path} is a symbolic link owned by another user (uid ${owner}): root does not read through it, and no setting of it is used; remove the link (\`rm ${path}\`), or run the command as that user`;
}
