/**
 * What a listing could not read, and why, so that it is rejected with its reason while the rest of
 * the batch goes on. fast-glob alone either stops at the first unreadable folder (the whole argument
 * rejected, its readable files never sent) or, with `suppressErrors`, skips every one in silence; and
 * it always skips a folder that is gone, which is how a folder whose name is not valid UTF-8 looks:
 * Node.js reads such a name with U+FFFD in place of the bytes, and that name opens nothing. The
 * walkers' `fs` option lets the listing note each folder it could not read and go on.
 */
import { sep } from 'node:path';
import { lstatSync, readdir, readlinkSync } from 'node:fs';
import { describeFsError, errnoCode } from '../fs/errors.js';
import { displayText, truncate } from '../output/sanitize.js';

/** What Node.js puts in a name for bytes that are not UTF-8. */
const REPLACEMENT = '\uFFFD';

const NOT_UTF8 =
  'its name is not valid UTF-8 (shown with \uFFFD), and vredact opens files by UTF-8 names only: rename it to UTF-8 (convmv does that)';

/** A --files-from list written by `find -print0`: its paths all on one line, between NUL bytes. */
const HOLDS_NUL =
  'the path holds a NUL byte, which no file name can: a NUL-separated list (find -print0) is read with -0 (--null)';

const NO_DASH_FILE = 'no such file or folder (a list of inputs on stdin is read with --files-from -)';

/** Where `path` points when it is a symbolic link (to nothing, as its stat failed); else undefined. */
function linkTarget(path: string): string | undefined {
  try {
    return lstatSync(path).isSymbolicLink() ? readlinkSync(path) : undefined;
  } catch {
    return undefined;
  }
}

/** Why `path` could not be read: a file-system error, or a name that is not UTF-8 or holds a NUL. */
export function describeInputError(error: unknown, path: string): string {
  // Node.js refuses such a path with ERR_INVALID_ARG_VALUE, which says nothing to a user.
  if (path.includes('\0')) return HOLDS_NUL;
  if (errnoCode(error) === 'ENOENT') {
    // `vredact redact -`, as other tools read stdin: here a list on stdin is `--files-from -`.
    if (path.endsWith(`${sep}-`)) return NO_DASH_FILE;
    if (path.includes(REPLACEMENT)) return NOT_UTF8;
    // "No such file" of a name that is right there in its folder listing reads as a contradiction.
    const target = linkTarget(path);
    if (target !== undefined) {
      return `a broken symbolic link: it points to ${truncate(displayText(target), 120)}, which does not exist`;
    }
  }
  return describeFsError(error);
}

export interface UnreadableFolder {
  path: string;
  reason: string;
}

/**
 * A `readdir` for a walker's `fs` option (fast-glob's, @nodelib/fs.walk's) that notes in `noted` each
 * folder it could not read, every error but a folder gone since its parent was read (deleted
 * meanwhile: nothing of it is left to send). The walker is then told to go on past errors.
 */
export function notingReaddir(noted: UnreadableFolder[]): typeof readdir {
  type Callback = (error: NodeJS.ErrnoException | null, entries: unknown) => void;
  // The walkers call readdir(path, callback) or readdir(path, options, callback).
  const noting = (path: string, ...rest: unknown[]): void => {
    const callback = rest.pop() as Callback;
    const done: Callback = (error, entries) => {
      if (error && (errnoCode(error) !== 'ENOENT' || path.includes(REPLACEMENT))) {
        noted.push({ path, reason: describeInputError(error, path) });
      }
      callback(error, entries);
    };
    (readdir as (...args: unknown[]) => void)(path, ...rest, done);
  };
  return noting as unknown as typeof readdir;
}
