/**
 * Something not a folder where the config file's folder (or one above it) should be, or a folder in
 * the file's own place: said as what it is, with what to do. The file system's own words misled:
 * reading through a file said "no such file or folder", and mkdir says "already exists" even of a
 * symbolic link to nothing.
 */
import { lstatSync, readlinkSync, type Stats, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { UsageError } from '../errors.js';
import { InTheWay } from '../fs/errors.js';

const ELSEWHERE = 'or point VREDACT_CONFIG_DIR at another folder';

/** The usage error for a config folder that something else stands in the way of. */
export function configFolderInTheWay(path: string, doing: 'read' | 'write', error: InTheWay): UsageError {
  const { blocker, linkTarget } = error;
  const hint =
    linkTarget === undefined
      ? `move or rename it, ${ELSEWHERE}`
      : linkTarget.exists
        ? `remove the link (\`rm ${blocker}\`), ${ELSEWHERE}`
        : `make the folder it points to (\`mkdir -p ${linkTarget.path}\`), or remove the link (\`rm ${blocker}\`), ${ELSEWHERE}`;
  return new UsageError(`cannot ${doing} the config file ${path}: ${error.what}`, hint);
}

/** The config file's path names a folder: nothing vredact wrote, so it is not vredact's to remove. */
export function configFileIsFolder(path: string): UsageError {
  return new UsageError(
    `cannot read the config file ${path}: it is a folder, not a file`,
    `move or rename that folder, ${ELSEWHERE}`,
  );
}

/**
 * Why reading `path` said ENOTDIR: the first folder above it that is there and is not a folder (a
 * file, or a link to a file or to nothing), or undefined when none is found now (it changed meanwhile).
 */
export function configFolderBlocker(path: string): InTheWay | undefined {
  for (let at = dirname(path); at !== dirname(at); at = dirname(at)) {
    const entry = statOrUndefined(lstatSync, at);
    if (!entry) continue;
    const target = statOrUndefined(statSync, at);
    if (target?.isDirectory()) return undefined;
    return new InTheWay(
      'ENOTDIR',
      dirname(path),
      at,
      entry.isSymbolicLink() ? linkTargetOf(at, target !== undefined) : undefined,
    );
  }
  return undefined;
}

/** Not there, or not reachable (ENOTDIR below the file that is in the way): either way, look higher. */
function statOrUndefined(look: typeof statSync, path: string): Stats | undefined {
  try {
    return look(path);
  } catch {
    return undefined;
  }
}

function linkTargetOf(link: string, exists: boolean): { path: string; exists: boolean } | undefined {
  try {
    return { path: resolve(dirname(link), readlinkSync(link)), exists };
  } catch {
    return undefined;
  }
}
