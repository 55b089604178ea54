/**
 * Reading the config file: plain JSON, with a reason for every file that cannot be used. Root does
 * not read through a link another user owns (config-link.ts): a parse error quotes the start of the
 * file, and such a link pointed at `/etc/shadow` would have root print a line of it.
 */
import { closeSync, constants, fstatSync, openSync, readFileSync, statSync } from 'node:fs';
import { UsageError, messageOf } from '../errors.js';
import { describeFsError, errnoCode } from '../fs/errors.js';
import { configFileIsFolder, configFolderBlocker, configFolderInTheWay } from './config-in-the-way.js';
import { untrustedFolderLink, type UntrustedFolderLink } from './config-folder-link.js';
import { foreignLinkToRoot, type ForeignLink } from './config-link.js';
import { homeFolder } from './home-path.js';

export const FIX_HINT = 'correct it, or delete it and set the values again with `vredact config set`';

/** Notepad, among others, starts a UTF-8 file it saves with a byte-order mark, which is no JSON. */
export function parseConfigText(text: string): unknown {
  return JSON.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
}

/**
 * The hint for a config file this user cannot read (root's 0600 file, read by a user after
 * `sudo vredact login` without their home folder kept): it is not broken, and not theirs to delete.
 */
function unreadableHint(path: string): string {
  let owner = '';
  try {
    owner = ` (uid ${statSync(path).uid})`;
  } catch {
    // A folder above it that this user cannot search: its owner is not to be known.
  }
  return `this user cannot read it: run as its owner${owner}, give it to this user (\`sudo chown ${process.getuid?.() ?? '$(id -u)'} ${path}\`), or point VREDACT_CONFIG_DIR at a folder of your own`;
}

/**
 * The file's values, or the link root did not read through or the folder link it did not follow
 * (then none); a missing file holds none.
 */
export type ConfigFileRead = {
  values: Record<string, unknown>;
  refusedLink?: ForeignLink;
  refusedFolder?: UntrustedFolderLink;
};

/** Whom root trusts besides itself: sudo's user (config-owner.ts's rule), and the home it was run with. */
export interface ReadTrust {
  sudoUid?: number;
  home?: string;
}

/** Far more than any settings file holds: past it, a file is no config file (a link to a disk image). */
export const MAX_CONFIG_BYTES = 1024 * 1024;

/**
 * The file's text, undefined when it is missing. Where root found no link, none is followed: one
 * swapped in since (ELOOP) is looked at again, as a link. Opened without waiting and read only when
 * it is one regular file of a bounded size: a FIFO in its place held every command for ever (a
 * blocked open, which not even Ctrl-C ends), and a link to `/dev/zero` filled the memory.
 */
function readText(path: string, follow: boolean, fileOwners?: readonly number[]): string | undefined {
  try {
    // Windows has neither flag (nor FIFOs in the file system): 0 there.
    const noFollow = follow ? 0 : (constants.O_NOFOLLOW ?? 0);
    const fd = openSync(path, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0) | noFollow);
    try {
      const stats = fstatSync(fd);
      // Whose the opened file is, not the one looked at before: a link re-pointed since is judged too.
      if (fileOwners && !fileOwners.includes(stats.uid)) throw new LinkedFileForeign(stats.uid);
      if (stats.isDirectory()) throw configFileIsFolder(path);
      if (!stats.isFile())
        throw new UsageError(`cannot read the config file ${path}: it is not a regular file`, FIX_HINT);
      if (stats.size > MAX_CONFIG_BYTES)
        throw new UsageError(
          `cannot read the config file ${path}: it is ${stats.size} bytes, more than the ${MAX_CONFIG_BYTES} a config file may have`,
          FIX_HINT,
        );
      return readFileSync(fd, 'utf8');
    } finally {
      closeSync(fd);
    }
  } catch (error) {
    if (error instanceof UsageError || error instanceof LinkedFileForeign) throw error;
    const code = errnoCode(error);
    if (code === 'ENOENT') return undefined;
    if (code === 'ELOOP' && !follow) throw new LinkSwappedIn();
    if (code === 'EISDIR') throw configFileIsFolder(path);
    const blocker = code === 'ENOTDIR' ? configFolderBlocker(path) : undefined;
    if (blocker) throw configFolderInTheWay(path, 'read', blocker);
    const hint = code === 'EACCES' || code === 'EPERM' ? unreadableHint(path) : FIX_HINT;
    throw new UsageError(`cannot read the config file ${path}: ${describeFsError(error)}`, hint);
  }
}

class LinkSwappedIn extends Error {}

class LinkedFileForeign extends Error {
  constructor(readonly owner: number) {
    super('the linked file is owned by another user');
  }
}

/**
 * Why the text is no JSON. The parser may quote the text's start (`Unexpected token 'r', "root:$6$se"…`):
 * root is then told only that it is invalid, as a folder on the way may be another user's link (their
 * `~/.config/vredact` pointed at a folder of root's) and the file one it alone may read.
 */
function parseFailure(error: unknown, uid: number | undefined): string {
  const message = messageOf(error);
  if (uid !== 0 || !message.includes('"')) return message;
  const at = /at position \d+(?: \(line \d+ column \d+\))?/.exec(message);
  return at ? `invalid JSON ${at[0]}` : 'invalid JSON';
}

export function readConfigFile(
  path: string,
  uid: number | undefined = process.geteuid?.(),
  trust: ReadTrust = {},
  lookAgain = true,
): ConfigFileRead {
  const refusedFolder = untrustedFolderLink(path, uid, trust.home ?? homeFolder());
  if (refusedFolder) return { values: {}, refusedFolder };
  const look = foreignLinkToRoot(path, uid, trust.sudoUid);
  if (look.refused) return { values: {}, refusedLink: look.refused };
  let text: string | undefined;
  try {
    text = readText(path, look.follow, look.fileOwners);
  } catch (error) {
    if (error instanceof LinkedFileForeign)
      return { values: {}, refusedLink: { path, owner: error.owner, linkedFile: true } };
    if (!(error instanceof LinkSwappedIn)) throw error;
    if (lookAgain) return readConfigFile(path, uid, trust, false);
    throw new UsageError(
      `cannot read the config file ${path}: it keeps changing between a file and a link`,
      FIX_HINT,
    );
  }
  if (text === undefined) return { values: {} };
  let value: unknown;
  try {
    value = parseConfigText(text);
  } catch (error) {
    throw new UsageError(`the config file ${path} is not JSON (${parseFailure(error, uid)})`, FIX_HINT);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new UsageError(`the config file ${path} is not a JSON object of settings`, FIX_HINT);
  }
  return { values: value as Record<string, unknown> };
}
