/**
 * Appends to this run's journal, the one place the engine writes it. Writes are queued in order on one
 * file handle. A durable line (`uploading`, `submitted`) resolves only once it is on disk; concurrent
 * durable lines share one flush (group commit), and the other lines are flushed with the next one or
 * at close. The folder is 0700 and the file 0600: the journal names every input. The journal's
 * folder is flushed once per run, when it is opened, before the first line goes in (see open()).
 */
import { close, constants, fchmod, fdatasync, fstat, open, read, write } from 'node:fs';
import { dirname } from 'node:path';
import { ensurePrivateDir } from '../fs/private-dir.js';
import { promisify } from 'node:util';
import type { Clock } from '../clock.js';
import { asLocalFsError } from '../fs/errors.js';
import { folderFlushes } from '../fs/folder-flush.js';
import { notRegularFile } from '../fs/regular-file.js';
import type { JournalEntry } from './journal.js';

// The callback API on a bare descriptor: a FileHandle's appendFile costs several times as much per
// line, and a batch appends two lines per file.
const openFd = promisify(open);
const writeFd = promisify(write);
const readFd = promisify(read);
const fstatFd = promisify(fstat);
const fchmodFd = promisify(fchmod);
const datasyncFd = promisify(fdatasync);
const closeFd = promisify(close);

// 'a+', never through a symbolic link (checkJournalWritable says why, before the lock is taken).
const APPEND_OWN_FILE =
  constants.O_RDWR | constants.O_APPEND | constants.O_CREAT | (constants.O_NOFOLLOW ?? 0);

/** Appends `text` whole: a short write (rare, but allowed) is followed by the rest. */
async function appendAll(fd: number, text: string): Promise<void> {
  let buffer = Buffer.from(text, 'utf8');
  while (buffer.length > 0) {
    const { bytesWritten } = await writeFd(fd, buffer, 0, buffer.length, null);
    buffer = buffer.subarray(bytesWritten);
  }
}

/**
 * Says whether the run may still write its journal: rejects once the run's lock is another run's,
 * whose journal this now is (src/fs/lock-fence.ts). Resolves at once in the common case.
 */
export type JournalGuard = () => Promise<void>;

export class JournalWriter {
  #queue: Promise<void> = Promise.resolve();
  #failure: unknown;
  #syncing: Promise<void> | undefined;
  #next: Promise<void> | undefined;
  #pending: string[] = [];
  #closed = false;

  private constructor(
    private readonly fd: number,
    readonly path: string,
    private readonly clock: Pick<Clock, 'now'>,
    private readonly guard: JournalGuard | undefined,
  ) {}

  /** `guard`: awaited before each write; when it rejects, nothing more is written (see JournalGuard). */
  static async open(
    path: string,
    clock: Pick<Clock, 'now'> = { now: Date.now },
    guard?: JournalGuard,
  ): Promise<JournalWriter> {
    try {
      await ensurePrivateDir(dirname(path));
      const fd = await openFd(path, APPEND_OWN_FILE, 0o600);
      try {
        await fchmodFd(fd, 0o600).catch(() => {});
        const stats = await fstatFd(fd);
        // A FIFO or a device under the journal's name opens without blocking for reading and writing,
        // and would swallow the records: only a regular file is a journal.
        if (!stats.isFile()) throw notRegularFile(stats);
        const { size } = stats;
        // The journal's name is an entry of the folder, and a power loss may take an entry that no
        // flush of the folder made durable, with every line flushed into the file since (outputs
        // would then stand that no journal vouches for). Not only a journal just created: one left
        // by an older version, or by a run before journals were flushed, may never have been. One
        // flush per run, before the first line and the first upload.
        await folderFlushes.flushed(dirname(path));
        if (size > 0) {
          const last = Buffer.alloc(1);
          await readFd(fd, last, 0, 1, size - 1);
          // A torn last line from a crash: start on a fresh line so the next record stays readable.
          if (last[0] !== 0x0a) await appendAll(fd, '\n');
        }
      } catch (error) {
        await closeFd(fd).catch(() => {});
        throw error;
      }
      return new JournalWriter(fd, path, clock, guard);
    } catch (error) {
      throw asLocalFsError(error, path, 'opening the journal');
    }
  }

  /** The first failure to write, if any: the batch stops on it. */
  get failure(): unknown {
    return this.#failure;
  }

  /** Appends one line; with `durable`, resolves only once it is on disk. Rejects with a LocalFsError. */
  append(entry: JournalEntry & { at?: string }, durable = false): Promise<void> {
    const { at, ...rest } = entry;
    const line = `${JSON.stringify({ v: 1, at: at ?? new Date(this.clock.now()).toISOString(), ...rest })}\n`;
    // Lines queued while a write is under way go out together in the next one.
    this.#pending.push(line);
    const write = this.#queue.then(async () => {
      if (this.#failure) throw this.#failure;
      if (this.#pending.length === 0) return;
      if (this.guard) {
        try {
          await this.guard();
        } catch (error) {
          this.#failure ??= error;
          throw error;
        }
      }
      const text = this.#pending.join('');
      this.#pending = [];
      await appendAll(this.fd, text);
    });
    this.#queue = write.catch((error: unknown) => {
      this.#failure ??= asLocalFsError(error, this.path, 'writing the journal');
    });
    return write.then(
      () => (durable ? this.#sync() : undefined),
      () => {
        throw this.#failure;
      },
    );
  }

  /** A flush that starts after every write queued so far: joins the next one when one is under way. */
  #sync(): Promise<void> {
    if (this.#next) return this.#next;
    if (!this.#syncing) {
      this.#syncing = datasyncFd(this.fd)
        .catch((error: unknown) => {
          this.#failure ??= asLocalFsError(error, this.path, 'writing the journal');
          throw this.#failure;
        })
        .finally(() => {
          this.#syncing = undefined;
        });
      return this.#syncing;
    }
    this.#next = this.#syncing
      .catch(() => {})
      .then(() => {
        this.#next = undefined;
        return this.#sync();
      });
    return this.#next;
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#queue;
    await datasyncFd(this.fd).catch(() => {});
    await closeFd(this.fd);
  }
}
