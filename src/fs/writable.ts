import { constants } from 'node:fs';
import { lstat, open, readlink, rm, stat } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { UsageError } from '../errors.js';
import { displayText } from '../output/sanitize.js';
import { temporaryNameFor } from './atomic-write.js';
import { describeFsError, errnoCode, fsHint, InTheWay } from './errors.js';
import { type CaseLookup, foundInOtherCase } from './letter-case.js';
import { blockerAbove, makeFolder } from './make-folder.js';
import { ensurePrivateDir, PRIVATE_FILE_MODE } from './private-dir.js';

const CANNOT_WRITE_HINT = 'choose an output folder you can write to (-o), or fix its permissions';
// No permission makes a path shorter: a deep -o said to fix permissions that were right.
const TOO_LONG_HINT = 'choose an output folder with a shorter path (-o)';

function hintFor(code: string): string {
  if (code === 'ENOSPC' || code === 'EDQUOT') return fsHint(code) ?? CANNOT_WRITE_HINT;
  return code === 'ENAMETOOLONG' ? TOO_LONG_HINT : CANNOT_WRITE_HINT;
}

/** A symbolic link that leads nowhere: to nothing, or round a loop of links (ELOOP). */
interface BrokenLink {
  link: string;
  target: string;
  loop: boolean;
  /** Where a chain of links ends, when its target is itself a link: the path that is not there. */
  end?: string;
}

/** Most links followed to the end of a chain: Linux's own limit (40), past which stat said ELOOP. */
const MAX_LINKS = 40;

/** Where the chain of links from `link`'s target ends, when that target is itself a link. */
async function chainEnd(link: string, target: string): Promise<string | undefined> {
  let at = resolve(dirname(link), target);
  let end: string | undefined;
  for (let hops = 0; hops < MAX_LINKS; hops++) {
    const next = await readlink(at).catch(() => undefined);
    if (next === undefined) return end;
    at = end = resolve(dirname(at), next);
  }
  return end;
}

/**
 * The first thing there at or above `path`, when it is a symbolic link that leads to no folder: to
 * nothing, or round a loop. mkdir cannot make a folder through it (EEXIST of the link, ENOENT or
 * ELOOP below it). A loop was said to be a link "to loopb, which does not exist", where loopb was,
 * and a chain of links "to c1, which does not exist", where c1 was a link to a link to nothing.
 */
async function brokenLinkOnWay(path: string): Promise<BrokenLink | undefined> {
  for (let at = path; ; at = dirname(at)) {
    const entry = await lstat(at).catch(() => undefined);
    if (entry) {
      if (!entry.isSymbolicLink()) return undefined;
      const failed = await stat(at).then(
        () => undefined,
        (error: unknown) => errnoCode(error),
      );
      if (failed === undefined) return undefined;
      const target = await readlink(at).catch(() => undefined);
      if (target === undefined) return undefined;
      const loop = failed === 'ELOOP';
      return { link: at, target, loop, end: loop ? undefined : await chainEnd(at, target) };
    }
    if (dirname(at) === at) return undefined;
  }
}

/** Why a broken link (brokenLinkOnWay) on the way to `outDir` keeps it from being a folder. */
function brokenLinkReason(
  outDir: string,
  { link, target, loop, end }: BrokenLink,
): { reason: string; hint: string } {
  const itself = link === outDir;
  const what = `${itself ? 'it' : displayText(link)} is a symbolic link to ${displayText(target)}`;
  if (loop) {
    return {
      reason: `${what}, a loop of symbolic links that leads to no folder`,
      hint: 'remove the link, or choose another output folder (-o)',
    };
  }
  // A chain of links: its first target is there (a link), the folder it leads to is not.
  const missing = end === undefined ? '' : `, through links to ${displayText(end)}`;
  return {
    reason: `${what}${missing}, which does not exist`,
    hint: itself
      ? 'create that folder, or choose another output folder (-o)'
      : 'create the folder it points to, or remove the link, or choose another output folder (-o)',
  };
}

/**
 * What stands where the output folder should be, when mkdir or stat said EEXIST or ENOTDIR: a file
 * above it, a link to a folder that is not there (it or one above it), or a file in its own place.
 * "out/sub: it is not a folder" sent the user looking for out/sub, where the file in the way was
 * out; a link to nothing above it was "the file … is in the way", where there was no file to move.
 */
async function inTheWay(outDir: string, error: unknown): Promise<{ reason: string; hint: string }> {
  const broken = await brokenLinkOnWay(outDir);
  if (broken) return brokenLinkReason(outDir, broken);
  if (errnoCode(error) === 'ELOOP') return { reason: describeFsError(error), hint: CANNOT_WRITE_HINT };
  const blocker = error instanceof InTheWay ? error.blocker : await blockerAbove(outDir);
  if (blocker !== undefined && blocker !== outDir) {
    return {
      reason: `the file ${displayText(blocker)} is in the way`,
      hint: 'move or rename it, or choose another output folder (-o)',
    };
  }
  // A file (or a FIFO, a device) in the folder's own place: no permission would make it a folder.
  return { reason: 'it is not a folder', hint: 'move or rename it, or choose another output folder (-o)' };
}

async function refuse(outDir: string, what: string, error: unknown): Promise<UsageError> {
  const code = errnoCode(error);
  const { reason, hint } =
    code === 'EEXIST' || code === 'ENOTDIR' || code === 'ELOOP'
      ? await inTheWay(outDir, error)
      : { reason: describeFsError(error), hint: hintFor(code) };
  return new UsageError(`${what} ${displayText(outDir)}: ${reason}`, hint);
}

/** What the write check learnt of the output folder on the way. */
export interface OutputFolderTraits {
  /** Whether it ignores letter case (see letter-case.ts): undefined when that could not be told. */
  ignoresCase: boolean | undefined;
}

/**
 * Makes sure files can be created in the output folder before anything is sent (exit 2 otherwise):
 * creates the folder if missing, then creates and removes a file in it (probeWrite), which tells
 * exactly whether the folder ignores letter case, even a fresh, empty one, with no write of its own.
 */
export async function checkOutputFolderWritable(
  outDir: string,
  lookUp?: CaseLookup,
): Promise<OutputFolderTraits> {
  try {
    // Each missing folder made by itself: a read-only file system gives its own error, not ENOENT.
    await makeFolder(outDir);
    if (!(await stat(outDir)).isDirectory())
      throw Object.assign(new Error('not a folder'), { code: 'ENOTDIR' });
  } catch (error) {
    throw await refuse(outDir, 'cannot create the output folder', error);
  }
  const ignoresCase = await probeWrite(outDir, (probe) => foundInOtherCase(probe, lookUp)).catch(
    async (error: unknown) => {
      throw await refuse(outDir, 'cannot write to the output folder', error);
    },
  );
  return { ignoresCase };
}

/**
 * Makes sure the output folder's state folder (`.vredact/`: journal and lock) is this user's, private
 * and writable before anything is sent (exit 2 otherwise, as for the output folder itself). One that
 * another user made cannot be made private by this one (EPERM) and may not take a lock or a journal:
 * a run failed there with exit 1, after its checks.
 */
export async function checkStateFolderWritable(stateDir: string): Promise<void> {
  try {
    await ensurePrivateDir(stateDir);
    await probeWrite(stateDir);
  } catch (error) {
    throw refuseStateFolder(stateDir, error);
  }
}

function refuseStateFolder(stateDir: string, error: unknown): UsageError {
  const code = errnoCode((error as { cause?: unknown }).cause ?? error) || errnoCode(error);
  return new UsageError(
    `cannot use the state folder ${displayText(stateDir)}: ${
      code === 'EPERM'
        ? 'it belongs to another user'
        : code === 'ENOTDIR' || code === 'EEXIST'
          ? 'it is not a folder'
          : describeFsError(error)
    }`,
    code === 'ENOSPC' || code === 'EDQUOT'
      ? fsHint(code)
      : 'it must be a folder of the user running vredact, writable by them (chmod 700); or choose another output folder (-o)',
  );
}

/**
 * Makes sure the run's own journal, when there is one, can be appended to before the lock is taken and
 * anything is sent (exit 2 otherwise): a read-only journal (chmod 400, a read-only bind mount) stopped
 * the run later, with exit 1, as if files had failed. A symbolic link is refused (JournalWriter never
 * opens through one). Only a regular file is asked (a FIFO there is
 * refused when the journal is opened); without blocking, so a FIFO swapped in cannot hang the check.
 */
export async function checkJournalWritable(journal: string): Promise<void> {
  const target = await readlink(journal).catch(() => undefined);
  // Written through, the link's file had the run's lines appended and was made 0600: whatever file
  // it was, and as root any file, planted by whoever could write the output folder.
  if (target !== undefined) {
    throw new UsageError(
      `cannot write the journal ${displayText(journal)}: it is a symbolic link (to ${displayText(target)})`,
      'vredact writes its journal only as a file of its own: put that file in the place of the link (mv), or remove the link to start a new journal',
    );
  }
  const info = await stat(journal).catch(() => undefined);
  if (!info?.isFile()) return;
  try {
    const handle = await open(journal, constants.O_WRONLY | constants.O_APPEND | constants.O_NONBLOCK);
    await handle.close();
  } catch (error) {
    const code = errnoCode(error);
    throw new UsageError(
      `cannot write the journal ${displayText(journal)}: ${describeFsError(error)}`,
      code === 'EACCES' || code === 'EPERM'
        ? `make it writable (chmod 600 ${displayText(journal)}) by the user running vredact, or choose another output folder (-o)`
        : CANNOT_WRITE_HINT,
    );
  }
}

/**
 * What a dry run can tell of the output folder and its state folder without writing: missing is fine
 * (a run makes them), but a file in the place of either (or of a folder above) is the usage error the
 * run would stop with, not a raw `ENOTDIR` from reading the journals there.
 */
export async function checkOutputFolderShape(outDir: string, stateDir: string): Promise<void> {
  const info = await stat(outDir).catch(async (error: unknown) => {
    if (errnoCode(error) !== 'ENOENT') throw await refuse(outDir, 'cannot use the output folder', error);
    // Missing is fine (a run makes it), unless a link to nothing stands where the run would make it.
    if (!(await brokenLinkOnWay(outDir))) return undefined;
    throw await refuse(outDir, 'cannot use the output folder', { code: 'ENOTDIR' });
  });
  if (info && !info.isDirectory())
    throw await refuse(outDir, 'cannot use the output folder', { code: 'ENOTDIR' });
  // The same for its state folder, whose journals the dry run reads: a file there is the run's exit 2.
  const state = info
    ? await stat(stateDir).catch((error: unknown) => {
        if (errnoCode(error) === 'ENOENT') return undefined;
        throw refuseStateFolder(stateDir, error);
      })
    : undefined;
  if (state && !state.isDirectory()) throw refuseStateFolder(stateDir, { code: 'ENOTDIR' });
}

/**
 * Creates and removes a file in `dir`: whether outputs can be written there. Permission bits alone
 * cannot tell (root ignores them; a read-only mount, an ACL or a full inode table can still refuse),
 * so the file system itself is asked. Throws its error; a leftover probe is swept like any partial file.
 * `whileThere` asks what only a file of the folder can tell (its letter case), before it is removed.
 */
export async function probeWrite<T>(
  dir: string,
  whileThere?: (probe: string) => Promise<T>,
): Promise<T | undefined> {
  const probe = temporaryNameFor(join(dir, 'write-check'));
  const handle = await open(probe, 'wx', PRIVATE_FILE_MODE);
  try {
    await handle.close();
    return await whileThere?.(probe);
  } finally {
    await rm(probe, { force: true });
  }
}
