/**
 * A rename is a change to its folder, and only a flush of the folder makes it durable: POSIX promises
 * nothing else, and some file systems (btrfs, whose fsync logs only the file it is called on; ext4 with
 * `data=writeback`; file systems over a network) may lose a rename to a power loss while the journal's
 * `done` line, flushed just after it, survives. The journal would then call done a file that is not
 * there (a re-run sends it again: output-presence.ts). So an output's folder is flushed after its
 * rename and before anything reports it done.
 *
 * At `-c 32` many renames land in one folder at once: they share one flush (group commit). A flush
 * already under way may have read the folder before a rename, so it covers only the renames before it
 * started; one rename after that joins the next flush, which starts as soon as the current one ends.
 */
import { close, constants, fsync, open } from 'node:fs';
import { promisify } from 'node:util';

/** Flushes one folder's entries to disk. */
export type FlushFolder = (dir: string) => Promise<void>;

/**
 * Folders open for a flush at once, across all folders: each flush holds one descriptor for as long
 * as it runs, and a batch writing to hundreds of folders must not hold hundreds.
 */
export const MAX_OPEN_FOLDERS = 8;

const openFd = promisify(open);
const fsyncFd = promisify(fsync);
const closeFd = promisify(close);

/**
 * Where a folder cannot be opened (Windows) or flushed (some file systems refuse fsync on a folder,
 * and commit its entries on their own terms): nothing more can be done, and the output stands.
 */
const CANNOT_FLUSH_FOLDERS = new Set(['EISDIR', 'EINVAL', 'ENOTSUP', 'EOPNOTSUPP', 'EBADF']);
const O_DIRECTORY = constants.O_DIRECTORY ?? 0;

function cannotFlush(error: unknown): boolean {
  return CANNOT_FLUSH_FOLDERS.has((error as NodeJS.ErrnoException).code ?? '');
}

/** Opens `dir`, flushes it and closes it; a file system that cannot flush folders is no failure. */
export async function fsyncFolder(dir: string): Promise<void> {
  // NTFS commits a rename with its metadata journal, and Windows cannot open a folder as a file.
  if (process.platform === 'win32') return;
  let fd: number;
  try {
    fd = await openFd(dir, constants.O_RDONLY | O_DIRECTORY);
  } catch (error) {
    if (cannotFlush(error)) return;
    throw error;
  }
  try {
    await fsyncFd(fd).catch((error: unknown) => {
      if (!cannotFlush(error)) throw error;
    });
  } finally {
    await closeFd(fd).catch(() => {});
  }
}

/** One folder's flushes: the one under way, and the one that will follow it for renames made since. */
interface FolderTurn {
  running: Promise<void> | undefined;
  next: Promise<void> | undefined;
}

export class FolderFlushes {
  /** Only folders with a flush under way or due: an idle folder is forgotten, whatever the batch's size. */
  readonly #turns = new Map<string, FolderTurn>();
  #open = 0;
  readonly #waiting: Array<() => void> = [];

  constructor(private readonly flushFolder: FlushFolder = fsyncFolder) {}

  /**
   * Resolves once a flush of `dir` that started after this call has ended: every rename in `dir`
   * done before the call is then on disk. Rejects with that flush's error.
   */
  flushed(dir: string): Promise<void> {
    let turn = this.#turns.get(dir);
    if (!turn) {
      turn = { running: undefined, next: undefined };
      this.#turns.set(dir, turn);
    }
    if (turn.next) return turn.next;
    if (!turn.running) return this.#start(dir, turn);
    const after = turn.running.catch(() => {});
    const next = after.then(() => {
      turn.next = undefined;
      return this.#start(dir, turn);
    });
    turn.next = next;
    return next;
  }

  #start(dir: string, turn: FolderTurn): Promise<void> {
    const running = this.#bounded(() => this.flushFolder(dir)).finally(() => {
      turn.running = undefined;
      if (!turn.next) this.#turns.delete(dir);
    });
    turn.running = running;
    return running;
  }

  async #bounded(flush: () => Promise<void>): Promise<void> {
    if (this.#open >= MAX_OPEN_FOLDERS) await new Promise<void>((resolve) => this.#waiting.push(resolve));
    else this.#open++;
    try {
      await flush();
    } finally {
      // The place passes straight to the next waiter, so that the count never goes over the cap.
      const wake = this.#waiting.shift();
      if (wake) wake();
      else this.#open--;
    }
  }
}

/**
 * The process's flushes: every output of a run and of a download, a run's journal (new, compacted
 * or left by an earlier run), a lock put in place and a folder made (make-folder.ts) go through this one.
 */
export const folderFlushes = new FolderFlushes();
