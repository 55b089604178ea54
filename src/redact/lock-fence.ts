/**
 * Fencing: a run makes sure the lock it took is still its own before it acts on it. A run paused past
 * its lease (a virtual machine suspended or migrated, a laptop asleep, SIGSTOP, a cgroup frozen, an
 * NFS server gone for minutes) is not dead, yet a run on another host may take its lock over
 * meanwhile (lock-lease.ts) and start on the same files. Nothing tells the paused run when it
 * resumes: before, it went on sending what the other run was sending (each file paid twice), both
 * appended to one journal, and its refreshes kept the other run's lock fresh.
 *
 * So the lock is checked at each refresh (the timer that fires late after a pause checks first), and
 * before each upload, each output published and each journal write whenever the last check that
 * found it ours is older than CONFIRM_WITHIN_REFRESHES refreshes: a comparison of timestamps in the
 * common case, no file-system call. Once another run's lock is found, `lost` is aborted with a
 * LockLostError: the batch stops, sends and writes nothing more, and leaves that lock alone.
 */
import { CliError, ExitCode } from '../errors.js';
import { displayText } from '../output/sanitize.js';
import { type LockOwner, lockRunShown, parseOwner } from './lock-owner.js';

/**
 * How old (in refreshes) the last check may be when the run acts on its lock. Well under the lease
 * (20 refreshes), so that hosts' clocks that disagree by minutes cannot let a lease lapse between two
 * checks; over one refresh, so that a refresh a little late (a busy event loop) costs no check per upload.
 */
const CONFIRM_WITHIN_REFRESHES = 2;

/** The lock of this run was taken over by another run, or removed: the batch stops (exit 1). */
export class LockLostError extends CliError {
  override name = 'LockLostError';
  constructor(message: string, hint: string) {
    super(message, ExitCode.partial, hint);
  }
}

/** What the fence does to the lock's file: read it by its path, touch the file this run created. */
export interface LockFiles {
  /** The lock's content now; rejects with the file system's error (ENOENT when it is gone). */
  read(): Promise<string>;
  /**
   * Sets the modification time of the file this run created, by its open descriptor: never of
   * whatever is at the path now, which may be another run's lock.
   */
  touch(at: Date): Promise<void>;
}

export interface FenceOptions {
  /** The output folder, for messages. */
  outDir: string;
  /** The lock's path, for messages. */
  path: string;
  /** This run's id in the lock. */
  id: string;
  refreshMs: number;
  now: () => number;
  files: LockFiles;
}

/** "45 s", "12 min": how long a run went without refreshing its lock. */
function span(ms: number): string {
  const seconds = Math.max(0, Math.round(ms / 1000));
  return seconds < 120 ? `${seconds} s` : `${Math.round(seconds / 60)} min`;
}

export class LockFence {
  readonly #lost = new AbortController();
  /** When a check last found the lock ours (this run's clock). */
  #confirmedAt: number;
  /** When this run last set the lock's modification time (its clock). */
  #refreshedAt: number;
  #checking: Promise<boolean> | undefined;
  #timer: NodeJS.Timeout | undefined;

  constructor(private readonly options: FenceOptions) {
    this.#confirmedAt = options.now();
    this.#refreshedAt = this.#confirmedAt;
  }

  /** Aborted, with the LockLostError, once the lock is found not to be this run's. */
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
   * Resolves while the lock is this run's, checking it first when the last check is too old (or the
   * clock went back); rejects with the LockLostError once it is not. A lock that cannot be read for
   * another reason (an I/O error) is not taken for lost: the run goes on, and checks again next time.
   */
  async confirm(): Promise<void> {
    if (this.#lost.signal.aborted) throw this.#lost.signal.reason;
    const since = this.options.now() - this.#confirmedAt;
    if (since >= 0 && since < this.options.refreshMs * CONFIRM_WITHIN_REFRESHES) return;
    await this.#check();
  }

  /**
   * One refresh: the lock is checked first (after a pause this is the first thing the timer does),
   * then its time set, unless it is another run's now.
   */
  async refresh(): Promise<void> {
    if (this.#lost.signal.aborted) return;
    const ours = await this.#check().catch(() => undefined);
    if (ours === undefined) return;
    const at = this.options.now();
    // A full disk, an NFS server away: the next refresh tries again, and the run goes on.
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
      // that replaced it. The id in it is this run's alone.
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

  #lostError(text: string | undefined, owner: LockOwner | undefined): LockLostError {
    const { outDir, path } = this.options;
    const check = 'check that no two machines are given the same output folder and shard';
    if (text === undefined) {
      return new LockLostError(
        `the lock ${displayText(path)} was removed while this run held it (by hand, or by a run that took it over and has ended)`,
        `run the same command again to finish the batch; ${check}`,
      );
    }
    const who = owner
      ? displayText(`${lockRunShown(owner)}, at ${owner.startedAt}`)
      : 'its lock cannot be read';
    const unrefreshed = this.options.now() - this.#refreshedAt;
    return new LockLostError(
      `the lock of the output folder ${displayText(outDir)} was taken over by another run (${who}) while this run went ${span(unrefreshed)} without refreshing it (was this machine suspended, or the process stopped?)`,
      `nothing to do: that run goes on with the batch; unless it replaced this one on purpose, ${check}`,
    );
  }
}
