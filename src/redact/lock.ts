/**
 * One run per output folder (per shard): `<out-dir>/.vredact/lock` (or `lock.<i>-of-<n>`), holding
 * the owner's pid, host name, boot, pid namespace and start time; runs whose shares of the inputs
 * overlap exclude each other too (lock-shares.ts). It appears whole or not at all
 * (createPrivateFileExclusively), so a full disk can never leave an empty lock. A lock left by a run
 * that died in this process space (src/fs/process-space.ts: its pid gone, or reused by a process that
 * started after the lock was written), or by a run elsewhere (another host, container or boot) that
 * stopped refreshing it (see LOCK_REFRESH_MS), is taken over with a warning; any other lock makes the
 * second run refuse before sending anything. While a run holds its lock, a fence refreshes it and
 * makes sure it is still the run's own (src/fs/lock-fence.ts).
 */
import { randomBytes } from 'node:crypto';
import { open, readdir, readFile, rename, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { CliError, ExitCode } from '../errors.js';
import { temporaryNameFor } from '../fs/atomic-write.js';
import { resolveFolderInside } from '../fs/containment.js';
import { asLocalFsError } from '../fs/errors.js';
import { createPrivateFileExclusively } from '../fs/exclusive-create.js';
import { ensurePrivateDir } from '../fs/private-dir.js';
import { processAlive, writerMayBeAlive } from '../fs/process-info.js';
import { displayText } from '../output/sanitize.js';
import type { Logger } from '../output/logger.js';
import { STATE_DIR } from './journal.js';
import { LockFence } from '../fs/lock-fence.js';
import { LOCK_REFRESH_MS, leaseEndMs, leaseLapsed, leaseMinutes } from '../fs/lock-lease.js';
import { hold, isHeldHere, releaseLock } from '../fs/lock-held-here.js';
import { runLockLost } from './lock-lost.js';
import { type LockOwner, lockRunShown, parseOwner } from '../fs/lock-owner.js';
import { sameProcessSpace, thisProcessSpace } from '../fs/process-space.js';
import { shardOfLock, shareLabel, sharesOverlap } from './lock-shares.js';
import { sweepPartials } from './sweep.js';

export const LOCK_NAME = 'lock';
/**
 * An unreadable lock (empty, damaged) younger than this may be a run that is just writing it; only
 * the fallback for file systems without hard links writes a lock in place, and it takes milliseconds.
 */
const UNREADABLE_GRACE_MS = 10_000;
const LOCK_NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;
/** A lock's file name: the folder's, or a shard's. */
const LOCK_FILE = /^lock(?:\.\d+-of-\d+)?$/;

export interface LockOptions {
  /** The lock's file name under `.vredact/`: `lock` (default), or `lock.<i>-of-<n>` for a shard. */
  name?: string;
  /** How often the lock is refreshed (tests shorten it). */
  refreshMs?: number;
}

export interface HeldLock {
  path: string;
  /**
   * Resolves while the lock is still this run's (at once when it was checked recently); rejects with
   * a LockLostError once another run holds it (see src/fs/lock-fence.ts).
   */
  confirm(): Promise<void>;
  /** Aborted, with the LockLostError, when the lock is found to be another run's. */
  lost: AbortSignal;
  /** Removes the lock, only while it is this run's. */
  release(): Promise<void>;
}

export class LockHeldError extends CliError {
  override name = 'LockHeldError';
  /**
   * @param holder who holds the lock, as "held by …" ends in a waiting run's line (escaped): "pid 7 on
   *   idx-0, started …"
   */
  constructor(
    message: string,
    hint: string,
    readonly holder = 'another vredact run',
  ) {
    super(message, ExitCode.usage, hint);
  }
}

export function lockPath(outDir: string, name: string = LOCK_NAME): string {
  return join(outDir, STATE_DIR, name);
}

/** Why a lock found in place is stale (its run is gone), or undefined when it must be respected. */
async function staleReason(
  path: string,
  owner: LockOwner | undefined,
  now: number,
): Promise<string | undefined> {
  if (!owner) {
    const mtime = (await stat(path).catch(() => undefined))?.mtimeMs ?? now;
    return now - mtime > UNREADABLE_GRACE_MS ? 'it is unreadable (empty or damaged) and not new' : undefined;
  }
  if (!sameProcessSpace(owner)) return leaseLapsed(path, owner, now);
  const ended = `a previous run (pid ${owner.pid}, started ${owner.startedAt}) ended without releasing it`;
  // Our own pid in a lock we did not write: a previous run's, whose pid was given to us (pids are
  // reused; in a container, where a run is often pid 7, every time).
  if (owner.pid === process.pid) return isHeldHere(owner.id) ? undefined : ended;
  if (!processAlive(owner.pid)) return ended;
  if (!writerMayBeAlive(owner.pid, Date.parse(owner.startedAt))) {
    return `${ended}; pid ${owner.pid} now belongs to a process that started after the lock was written`;
  }
  return undefined;
}

/** `overlapping`: the other run holds another share of the inputs, one that overlaps this run's. */
function heldError(
  outDir: string,
  path: string,
  owner: LockOwner | undefined,
  overlapping?: string,
): LockHeldError {
  const shownPath = displayText(path);
  const share = overlapping ? `, over ${shareLabel(overlapping)},` : '';
  const shards = overlapping
    ? '; runs of one output folder at once must be shards of one count (--shard i/n, one n)'
    : '';
  const aRun = overlapping ? `a run over ${shareLabel(overlapping)}` : '';
  if (!owner) {
    return new LockHeldError(
      `another vredact run${share} is starting in the output folder ${displayText(outDir)} (its lock is not written yet)`,
      `wait a few seconds and try again; if no run is active, delete ${shownPath}${shards}`,
      `${aRun || 'a run'} that is starting (its lock is not written yet)`,
    );
  }
  const who = displayText(`${lockRunShown(owner)}, started ${owner.startedAt}`);
  const holder = overlapping ? `${aRun} (${who})` : who;
  return new LockHeldError(
    `another vredact run${share} is using the output folder ${displayText(outDir)} (${who})`,
    (sameProcessSpace(owner)
      ? `wait for it to finish; if no run is active, delete ${shownPath}`
      : owner.refreshMs !== undefined
        ? `wait for it to finish; a lock its run stops refreshing is taken over after ${leaseMinutes(owner.refreshMs)} min`
        : `wait for it to finish; vredact cannot tell whether a run on ${displayText(owner.hostname)} is alive: if it is not, delete ${shownPath}`) +
      shards,
    holder,
  );
}

/**
 * The first live lock in `stateDir` whose run's share overlaps `name`'s (see lock-shares.ts). Looked
 * for after this run's own lock is in place: of two overlapping runs, the one that placed its lock
 * second always sees the first's, so at least one refuses (both may, when they start together).
 * A stale one is left for its own share's next run to take over.
 */
async function liveOverlappingLock(stateDir: string, name: string, now: number) {
  for (const other of await readdir(stateDir)) {
    if (!sharesOverlap(name, other)) continue;
    const path = join(stateDir, other);
    const text = await readFile(path, 'utf8').catch(() => undefined);
    if (text === undefined) continue; // released meanwhile
    const owner = parseOwner(text);
    if (!(await staleReason(path, owner, now))) return { name: other, path, owner };
  }
  return undefined;
}

/**
 * A run that holds a lock of an output folder now: the lock's name (`lock`, `lock.<i>-of-<n>`), when
 * its run started (ms, as the lock says; NaN when it does not), its pid, host and start as shown, and,
 * for a lock judged by its lease, when that lapses unless refreshed before.
 */
export type RunUnderWay = { lock: string; startedMs: number; shown: string; leaseEndMs?: number };

/** The runs that hold a lock of the output folder now (`vredact status` tells of them). */
export async function runsUnderWay(outDir: string, now = Date.now()): Promise<RunUnderWay[]> {
  const stateDir = join(outDir, STATE_DIR);
  const names = await readdir(stateDir).catch(() => [] as string[]);
  const runs: RunUnderWay[] = [];
  for (const name of names.filter((name) => LOCK_FILE.test(name))) {
    const path = join(stateDir, name);
    const text = await readFile(path, 'utf8').catch(() => undefined);
    const owner = text === undefined ? undefined : parseOwner(text);
    if (owner && !(await staleReason(path, owner, now))) {
      const leaseEnd = sameProcessSpace(owner) ? undefined : await leaseEndMs(path, owner);
      runs.push({
        lock: name,
        startedMs: Date.parse(owner.startedAt),
        shown: displayText(`${lockRunShown(owner)}, started ${owner.startedAt}`),
        ...(leaseEnd === undefined ? {} : { leaseEndMs: leaseEnd }),
      });
    }
  }
  return runs;
}

/**
 * The lock just created, refreshed and checked by a fence until it is released. The fence refreshes
 * it through a descriptor of the file created here, so a refresh never touches a successor's lock.
 */
async function fenced(outDir: string, path: string, me: LockOwner, now: () => number): Promise<HeldLock> {
  const handle = await open(path, 'r').catch(async (error: unknown) => {
    await releaseLock(path, me.id);
    throw asLocalFsError(error, path, 'opening the lock');
  });
  const fence = new LockFence({
    id: me.id,
    refreshMs: me.refreshMs ?? LOCK_REFRESH_MS,
    now,
    files: { read: () => readFile(path, 'utf8'), touch: (at) => handle.utimes(at, at) },
    lostError: runLockLost(outDir, path),
  });
  fence.start();
  return {
    path,
    confirm: () => fence.confirm(),
    lost: fence.lost,
    release: async () => {
      fence.stop();
      // Closed first: on NFS a removed file still open is kept under a `.nfs…` name until it is closed.
      await handle.close().catch(() => {});
      await releaseLock(path, me.id);
    },
  };
}

/** Takes the lock of an output folder, or throws LockHeldError (exit 2) or a LocalFsError. */
export async function acquireLock(
  outDir: string,
  log: Logger,
  now: () => number = Date.now,
  options: LockOptions = {},
): Promise<HeldLock> {
  const name = options.name ?? LOCK_NAME;
  if (!LOCK_NAME_PATTERN.test(name)) throw new Error(`not a lock name: ${JSON.stringify(name)}`);
  const stateDir = await resolveFolderInside(outDir, STATE_DIR);
  await ensurePrivateDir(stateDir);
  const path = lockPath(outDir, name);
  const refreshMs = options.refreshMs ?? LOCK_REFRESH_MS;
  const me: LockOwner = {
    pid: process.pid,
    ...thisProcessSpace(),
    startedAt: new Date(now()).toISOString(),
    id: randomBytes(8).toString('hex'),
    refreshMs,
  };
  for (let attempt = 0; attempt < 5; attempt++) {
    const created = await createPrivateFileExclusively(path, `${JSON.stringify(me)}\n`).catch(
      (error: unknown) => {
        throw asLocalFsError(error, path, 'writing the lock');
      },
    );
    if (created) {
      hold(me.id, path);
      const overlapping = await liveOverlappingLock(stateDir, name, now()).catch(async (error: unknown) => {
        await releaseLock(path, me.id);
        throw asLocalFsError(error, stateDir, 'reading the locks');
      });
      if (overlapping) {
        await releaseLock(path, me.id);
        throw heldError(outDir, overlapping.path, overlapping.owner, overlapping.name);
      }
      // Temporary files of lock writers (and journal rewrites) that died before cleaning up; a shard's
      // only, by a shard: another shard's may be a live run's on another host, as beside the outputs.
      await sweepPartials([stateDir], outDir, shardOfLock(name)).catch(() => 0);
      return await fenced(outDir, path, me, now);
    }
    const text = await readFile(path, 'utf8').catch(() => undefined);
    if (text === undefined) continue; // removed meanwhile: try again
    const owner = parseOwner(text);
    const stale = await staleReason(path, owner, now());
    if (!stale) throw heldError(outDir, path, owner);
    // Move the stale lock aside (atomic), check it is the one judged stale, then try again.
    // A temporary name: swept like any partial file should this process die right here.
    const aside = temporaryNameFor(path);
    try {
      await rename(path, aside);
    } catch {
      continue;
    }
    const moved = await readFile(aside, 'utf8').catch(() => '');
    if (moved !== text) {
      // Another run took it over in between: put its fresh lock back and refuse.
      await rename(aside, path).catch(() => {});
      throw new LockHeldError(
        `another vredact run is using the output folder ${displayText(outDir)}`,
        'wait for it to finish',
      );
    }
    await rm(aside, { force: true });
    log.warn(`took over the lock of ${displayText(outDir)}: ${displayText(stale)}`);
  }
  throw new LockHeldError(
    `could not take the lock ${displayText(path)}`,
    'try again; if no run is active, delete the lock file',
  );
}
