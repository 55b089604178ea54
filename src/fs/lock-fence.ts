/**
 * Fencing: a holder of a lock (a run of redact on its output folder, a sandbox on its data folder)
 * makes sure the lock it took is still its own before it acts on it. A holder paused past its lease
 * (a virtual machine suspended or migrated, a laptop asleep, SIGSTOP, a cgroup frozen, an NFS server
 * gone for minutes) is not dead, yet a process on another host may take its lock over meanwhile
 * (lock-lease.ts) and start on the same files. Nothing tells the paused one when it resumes: before,
 * a run went on sending what the other run was sending (each file paid twice), both appended to one
 * journal, and its refreshes kept the other run's lock fresh; a sandbox went on writing jobs beside
 * its successor.
 *
 * So the lock is checked at each refresh (the timer that fires late after a pause checks first), and
 * before each write the holder guards whenever the last check that found it ours is older than
 * CONFIRM_WITHIN_REFRESHES refreshes: a comparison of timestamps in the common case, no file-system
 * call. Once another's lock is found, `lost` is aborted with the holder's error (`lostError`): the
 * holder stops, writes nothing more, and leaves that lock alone.
 */
import { type LockOwner, parseOwner } from './lock-owner.js';

/**
 * How old (in refreshes) the last check may be when the holder acts on its lock. Well under the lease
 * (20 refreshes), so that hosts' clocks that disagree by minutes cannot let a lease lapse between two
 * checks; over one refresh, so that a refresh a little late (a busy event loop) costs no check per write.
 */
const CONFIRM_WITHIN_REFRESHES = 2;

/** What the fence found once the lock was no longer its holder's, for the holder's message. */
export interface LostLock {
  /** The file is gone (removed by hand, or by a successor that has ended). */
  removed: boolean;
  /** Who holds it now; undefined when it is gone or cannot be read. */
  owner: LockOwner | undefined;
  /** How long the holder went without refreshing its lock, as shown: "45 s", "12 min". */
  unrefreshed: string;
}

/** What the fence does to the lock's file: read it by its path, touch the file its holder created. */
export interface LockFiles {
  /** The lock's content now; rejects with the file system's error (ENOENT when it is gone). */
  read(): Promise<string>;
  /**
   * Sets the modification time of the file its holder created, by its open descriptor: never of
   * whatever is at the path now, which may be a successor's lock.
   */
  touch(at: Date): Promise<void>;
}

export interface FenceOptions {
  /** The holder's id in the lock. */
  id: string;
  refreshMs: number;
  now: () => number;
  files: LockFiles;
  /** The holder's error once its lock is found lost: `lost` is aborted with it, `confirm()` rejects with it. */
  lostError: (lost: LostLock) => Error;
}

/** "45 s", "12 min": how long a holder went without refreshing its lock. */
function span(ms: number): string {
  const seconds = Math.max(0, Math.round(ms / 1000));
  return seconds < 120 ? `${seconds} s` : `${Math.round(seconds / 60)} min`;
}

export class LockFence {
  readonly #lost = new AbortController();
  /** When a check last found the lock ours (this process's clock). */
  #confirmedAt: number;
  /** When the holder last set the lock's modification time (this clock). */
  #refreshedAt: number;
  #checking: Promise<boolean> | undefined;
  #timer: NodeJS.Timeout | undefined;

  constructor(private readonly options: FenceOptions) {
    this.#confirmedAt = options.now();
    this.#refreshedAt = this.#confirmedAt;
  }

  /** Aborted, with the holder's error (`lostError`), once the lock is found not to be its own. */
  get lost(): AbortSignal {
    return this.#lost.signal;
  }

  /** Refreshes the lock every `refreshMs` until `stop()`. */
  start(): void {
    this.#timer = setInterval(() => void this.refresh(), this.options.refreshMs).unref();
  }

  stop(): void {
    clearInterval(this.#timer);
  }

  /**
   * Resolves while the lock is its holder's, checking it first when the last check is too old (or the
   * clock went back); rejects with the holder's error once it is not. A lock that cannot be read for
   * another reason (an I/O error) is not taken for lost: the holder goes on, and checks again next time.
   */
  async confirm(): Promise<void> {
    if (this.#lost.signal.aborted) throw this.#lost.signal.reason;
    const since = this.options.now() - this.#confirmedAt;
    if (since >= 0 && since < this.options.refreshMs * CONFIRM_WITHIN_REFRESHES) return;
    await this.#check();
  }

  /**
   * One refresh: the lock is checked first (after a pause this is the first thing the timer does),
   * then its time set, unless it is another's now.
   */
  async refresh(): Promise<void> {
    if (this.#lost.signal.aborted) return;
    const ours = await this.#check().catch(() => undefined);
    if (ours === undefined) return;
    const at = this.options.now();
    // A full disk, an NFS server away: the next refresh tries again, and the holder goes on.
    await this.options.files.touch(new Date(at)).then(
      () => {
        this.#refreshedAt = at;
      },
      () => {},
    );
  }

  /** Whether the lock was found ours (false: it could not be read); rejects once it is another's. */
  #check(): Promise<boolean> {
    this.#checking ??= this.#judge().finally(() => {
      this.#checking = undefined;
    });
    return this.#checking;
  }

  async #judge(): Promise<boolean> {
    const at = this.options.now();
    let text: string | undefined;
    try {
      // The content, not the inode number: an NFS server may give a removed lock's number to the lock
      // that replaced it. The id in it is its holder's alone.
      text = await this.options.files.read();
    } catch (error) {
      if ((error as { code?: unknown }).code !== 'ENOENT') return false;
    }
    const owner = text === undefined ? undefined : parseOwner(text);
    if (owner?.id === this.options.id) {
      this.#confirmedAt = at;
      return true;
    }
    const error = this.#lostError(text, owner);
    this.stop();
    this.#lost.abort(error);
    throw error;
  }

  #lostError(text: string | undefined, owner: LockOwner | undefined): Error {
    return this.options.lostError({
      removed: text === undefined,
      owner,
      unrefreshed: span(this.options.now() - this.#refreshedAt),
    });
  }
}
