import { CliError, ExitCode, messageOf } from '../errors.js';

/**
 * The one home for what a local file-system failure means. A failure on this machine (no space,
 * read-only, permissions, too many open files, a name too long) is never a network error: it is
 * named with its path and never "fixed" by sending or fetching again.
 */

export function errnoCode(error: unknown): string {
  const direct = (error as NodeJS.ErrnoException | undefined)?.code;
  if (typeof direct === 'string') return direct;
  const cause = (error as { cause?: NodeJS.ErrnoException } | undefined)?.cause?.code;
  return typeof cause === 'string' ? cause : '';
}

const LOCAL_CODES: Record<string, string> = {
  ENOENT: 'no such file or folder',
  ENOTDIR: 'no such file or folder',
  EACCES: 'permission denied',
  EPERM: 'permission denied',
  ELOOP: 'too many levels of symbolic links',
  ENOSPC: 'no space left on the device',
  EDQUOT: 'disk quota exceeded',
  EROFS: 'read-only file system',
  EMFILE: 'too many open files',
  ENFILE: 'too many open files in the system',
  ENAMETOOLONG: 'file name too long',
  EISDIR: 'is a folder',
  EEXIST: 'already exists',
  EIO: 'input/output error',
  // Mostly the process's own limit (ulimit -f): no file system vredact writes to stops below 4 GiB.
  EFBIG: 'file too large: over the file-size limit (ulimit -f) or the largest file the file system takes',
  // BSD's errno for "inappropriate file type"; vredact also gives it to a FIFO or device where a file must be.
  EFTYPE: 'not a regular file',
};

/** Failures that no other file can escape either: the batch stops sending new work. */
const BATCH_FATAL = new Set(['ENOSPC', 'EDQUOT', 'EROFS', 'EIO']);

/** True when the error is a local file-system failure (an errno code this module knows). */
export function isLocalFsError(error: unknown): boolean {
  return error instanceof LocalFsError || errnoCode(error) in LOCAL_CODES;
}

/** A short human reason for a file-system error: `permission denied`, `no space left on the device`. */
export function describeFsError(error: unknown): string {
  const code = errnoCode(error);
  const known = LOCAL_CODES[code];
  if (known) return known;
  return code || messageOf(error);
}

/**
 * mkdir's EEXIST or ENOTDIR where what is in the way is known: `blocker`, the folder's own path or one
 * above it, is there and is not a folder (a file, mostly). mkdir's own words, "already exists", read
 * as if the folder were there.
 */
export class InTheWay extends Error {
  constructor(
    readonly code: 'EEXIST' | 'ENOTDIR',
    readonly path: string,
    readonly blocker: string,
    /**
     * Where `blocker` points when it is a symbolic link (resolved from its folder): one to nothing
     * makes mkdir say "already exists" of a folder that is nowhere.
     */
    readonly linkTarget?: { path: string; exists: boolean },
  ) {
    super(`${code}: ${blocker} is not a folder, mkdir ${path}`);
  }

  /** What is in the way, in words: "/a/b is a symbolic link to /c, which does not exist". */
  get what(): string {
    const link = this.linkTarget;
    if (!link) return `${this.blocker} is a file, not a folder`;
    return `${this.blocker} is a symbolic link to ${link.path}, which ${link.exists ? 'is not a folder' : 'does not exist'}`;
  }
}

function reasonOf(path: string, code: string, cause: unknown): string {
  if (cause instanceof InTheWay) {
    const what = cause.blocker === path ? 'a file' : `the file ${cause.blocker}`;
    return `${what} is in the way; move or rename it, then run again`;
  }
  return `${LOCAL_CODES[code] ?? code} (${code || 'unknown'})`;
}

/** A local file-system failure, with the path and what vredact was doing. */
export class LocalFsError extends CliError {
  override name = 'LocalFsError';
  constructor(
    readonly path: string,
    readonly code: string,
    readonly doing: string,
    cause?: unknown,
  ) {
    super(`${doing} ${path}: ${reasonOf(path, code, cause)}`, ExitCode.partial, fsHint(code));
    if (cause !== undefined) this.cause = cause;
  }

  /** No space, read-only, I/O error: nothing else can be written either, so the batch stops. */
  get stopsBatch(): boolean {
    return BATCH_FATAL.has(this.code);
  }
}

/** What to do about a local failure with this errno code, where there is something to say. */
export function fsHint(code: string): string | undefined {
  if (code === 'ENOSPC' || code === 'EDQUOT') return 'free some space (or choose another -o), then run again';
  if (code === 'EROFS') return 'choose an output folder you can write to (-o)';
  if (code === 'EACCES' || code === 'EPERM')
    return 'fix its permissions, or choose an output folder you can write to (-o)';
  if (code === 'EMFILE' || code === 'ENFILE') return 'lower -c, or raise the open-file limit (ulimit -n)';
  if (code === 'ENAMETOOLONG') return 'shorten the file or folder names';
  return undefined;
}

/** Wraps a local file-system error as a LocalFsError naming `path`; anything else is returned as it is. */
export function asLocalFsError(error: unknown, path: string, doing: string): unknown {
  if (error instanceof LocalFsError) return error;
  const code = errnoCode(error);
  return code in LOCAL_CODES ? new LocalFsError(path, code, doing, error) : error;
}
