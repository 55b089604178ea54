/**
 * A config folder reached, by root, through a link in a user's home folder. Root run with a user's
 * HOME (sudo keeping it) followed `~/.config/vredact` (or `~/.config`) wherever the user pointed it,
 * and read and used the `config.json` it found there: one in a folder of root's, which only root may
 * read, or a third user's. As ssh's StrictModes judges what leads to `~/.ssh` by its owners, and as
 * config-parents.ts does for the folders above: a link on the way from the home folder down is taken
 * only when the home's owner (or root) made it and it leads to a folder of the home's owner. A link
 * into a folder of root's is no exception: the home is not root's, and root's folder is not theirs.
 * A home folder of root's is root's own to link as it likes. The check is made before the file is
 * opened: a link swapped in between is not seen (Node.js cannot walk a path one `openat` at a time).
 */
import { lstatSync, statSync } from 'node:fs';
import { dirname, isAbsolute, join, relative, sep } from 'node:path';
import { UsageError } from '../errors.js';
import { homeFolder } from './home-path.js';

const ROOT_UID = 0;

/** A link on the way to the config folder that root does not follow. */
export interface UntrustedFolderLink {
  path: string;
  homeOwner: number;
  /** Another user's link, whatever it leads to. */
  linkOwner?: number;
  /** The owner of the folder it leads to, when that is not the home's owner. */
  folderOwner?: number;
}

/** The first link, from the home folder down to the config file's folder, that root must not follow. */
export function untrustedFolderLink(
  path: string,
  uid: number | undefined = process.geteuid?.(),
  home: string | undefined = homeFolder(),
): UntrustedFolderLink | undefined {
  if (uid !== ROOT_UID || home === undefined || !isAbsolute(path) || !isAbsolute(home)) return undefined;
  const inHome = relative(home, dirname(path));
  if (inHome === '' || inHome.startsWith('..') || isAbsolute(inHome)) return undefined;
  let homeOwner: number;
  try {
    homeOwner = statSync(home).uid;
  } catch {
    return undefined;
  }
  if (homeOwner === ROOT_UID) return undefined;
  let at = home;
  for (const name of inHome.split(sep)) {
    at = join(at, name);
    let linkOwner: number;
    let folderOwner: number;
    try {
      const entry = lstatSync(at);
      if (!entry.isSymbolicLink()) continue;
      linkOwner = entry.uid;
      folderOwner = statSync(at).uid;
    } catch {
      // Not there, or a link to nothing: there is nothing to read, and the read or write says why.
      return undefined;
    }
    const foreignLink = linkOwner !== homeOwner && linkOwner !== ROOT_UID;
    if (foreignLink || folderOwner !== homeOwner)
      return {
        path: at,
        homeOwner,
        ...(foreignLink ? { linkOwner } : { folderOwner }),
      };
  }
  return undefined;
}

function whatIsWrong({ path, homeOwner, linkOwner, folderOwner }: UntrustedFolderLink): string {
  const what =
    linkOwner !== undefined
      ? `a symbolic link owned by another user (uid ${linkOwner})`
      : `a symbolic link to a folder owned by uid ${folderOwner}, not by the home folder's owner (uid ${homeOwner})`;
  return `the folder ${path} on the way to the config file is ${what}`;
}

const FIX = (path: string) =>
  `point it at a folder of the home's owner, remove it (\`rm ${path}\`), or run the command as that user`;

/** The warning of a config file root did not read for such a link: one line, with what to do. */
export function untrustedFolderLinkLine(link: UntrustedFolderLink): string {
  return `${whatIsWrong(link)}: root does not follow it, and no setting of the config file is used; ${FIX(link.path)}`;
}

/** The error of a write root does not make through such a link. */
export function untrustedFolderLinkError(configPath: string, link: UntrustedFolderLink): UsageError {
  return new UsageError(
    `cannot write the config file ${configPath}: ${whatIsWrong(link)}, and root does not follow it`,
    FIX(link.path),
  );
}
