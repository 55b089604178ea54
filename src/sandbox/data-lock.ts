/**
 * One sandbox per data folder: `<data-dir>/sandbox.lock` holds the owner's pid, host name, boot, pid
 * namespace and start time. Two sandboxes on one folder each kept their own list of the jobs, wrote
 * job files the other never read, and the second emptied `tmp/` under the first's uploads in progress.
 *
 * A lock is judged as redact's output-folder lock is (src/fs/process-space.ts): by its pid only when it
 * was written in this process space (its pid gone, or now another process's: taken over); any other
 * (another host, container or boot, or a lock of an earlier version, which does not say its space) by
 * its lease: the sandbox touches its lock every refresh while it runs, and a lock untouched for the
 * lease is taken over. Judged by host name and pid, a sandbox in another container with our host name
 * (a replacement pod) looked dead, and a second one started on its folder.
 *
 * While it holds the lock, a sandbox is fenced as a run is (src/fs/lock-fence.ts): at each refresh,
 * and before it writes a job's data when its last check is old, it makes sure the lock still names
 * it. One paused past its lease (SIGSTOP, a frozen VM) whose folder another sandbox took over went on
 * writing jobs beside it when it resumed; now it finds `lost` aborted and stops.
 */
import { randomBytes } from 'node:crypto';
import { open, readFile, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { temporaryNameFor } from '../fs/atomic-write.js';
import { createPrivateFileExclusively } from '../fs/exclusive-create.js';
import { LockFence, type LostLock } from '../fs/lock-fence.js';
import { hold, releaseLock } from '../fs/lock-held-here.js';
import { LOCK_REFRESH_MS, leaseLapsed, leaseMinutes } from '../fs/lock-lease.js';
import { type LockOwner, lockRunShown, parseOwner } from '../fs/lock-owner.js';
import { processAlive, writerMayBeAlive } from '../fs/process-info.js';
import { sameProcessSpace, thisProcessSpace } from '../fs/process-space.js';
import { displayText } from '../output/sanitize.js';

export const DATA_LOCK_NAME = 'sandbox.lock';

/** Another sandbox holds the data folder; `owner` says which, as shown, and `hint` what to do. */
export class DataDirInUseError extends Error {
  override name = 'DataDirInUseError';
  constructor(
    readonly dataDir: string,
    readonly owner: string,
    readonly hint = 'stop that sandbox, or give another --data-dir',
  ) {
    super(`another sandbox is using the data folder ${dataDir} (${owner})`);
  }
}

/**
 * The lock of the data folder was found to be another sandbox's, or removed, while this sandbox held
 * it: the sandbox stops serving.
 */
export class DataDirTakenOverError extends Error {
  override name = 'DataDirTakenOverError';
}

export interface DataLock {
  /**
   * Resolves while the lock is this sandbox's (at once when it was checked recently); rejects with a
   * DataDirTakenOverError once it is not.
   */
  confirm(): Promise<void>;
  /** Aborted, with the DataDirTakenOverError, when the lock is found not to be this sandbox's. */
  lost: AbortSignal;
  /** Removes the lock, if it is still this one. */
  release(): Promise<void>;
}

export interface DataLockOptions {
  /** How often the lock is touched while held (tests shorten it). */
  refreshMs?: number;
  now?: () => number;
}

/**
 * A lock that does not say how often it is refreshed (an earlier version's, which never refreshed
 * it) is judged by the lease of one refreshed as often as this version refreshes: it cannot be told
 * from another container's, and must not keep the folder forever once its sandbox is gone.
 */
const withLease = (owner: LockOwner): LockOwner =>
  owner.refreshMs === undefined ? { ...owner, refreshMs: LOCK_REFRESH_MS } : owner;

/**
 * Why a lock found in place is stale, or undefined while its sandbox may run. An unreadable lock is
 * damage: a lock appears whole (createPrivateFileExclusively).
 */
async function staleReason(path: string, owner: LockOwner | undefined, now: number) {
  if (!owner) return 'it is unreadable';
  if (!sameProcessSpace(owner)) return leaseLapsed(path, withLease(owner), now, 'sandbox');
  const gone = `its sandbox (pid ${owner.pid}, started ${owner.startedAt}) ended without removing it`;
  if (!processAlive(owner.pid)) return gone;
  return writerMayBeAlive(owner.pid, Date.parse(owner.startedAt)) ? undefined : gone;
}

function inUse(root: string, owner: LockOwner | undefined): DataDirInUseError {
  if (!owner) return new DataDirInUseError(root, 'its lock is being written');
  const shown = `${lockRunShown(owner)}, started ${owner.startedAt}`;
  if (sameProcessSpace(owner)) return new DataDirInUseError(root, shown);
  const minutes = leaseMinutes(withLease(owner).refreshMs ?? LOCK_REFRESH_MS);
  return new DataDirInUseError(
    root,
    shown,
    `stop that sandbox, or give another --data-dir; a lock its sandbox stops refreshing is taken over after ${minutes} min`,
  );
}

/** Takes the lock of `root` (a folder that exists), or throws DataDirInUseError or the file system's error. */
export async function lockDataDir(
  root: string,
  warn: (line: string) => void,
  options: DataLockOptions = {},
): Promise<DataLock> {
  const now = options.now ?? Date.now;
  const path = join(root, DATA_LOCK_NAME);
  const me: LockOwner = {
    pid: process.pid,
    ...thisProcessSpace(),
    startedAt: new Date(now()).toISOString(),
    id: randomBytes(8).toString('hex'),
    refreshMs: options.refreshMs ?? LOCK_REFRESH_MS,
  };
  const text = `${JSON.stringify(me)}\n`;
  for (let attempt = 0; attempt < 5; attempt++) {
    if (await createPrivateFileExclusively(path, text)) return held(root, path, me, now);
    const found = await readFile(path, 'utf8').catch(() => undefined);
    if (found === undefined) continue; // released meanwhile
    const owner = parseOwner(found);
    const stale = await staleReason(path, owner, now());
    if (!stale) throw inUse(root, owner);
    // Moved aside, then checked to be the lock judged: another sandbox may have taken it over first.
    const aside = temporaryNameFor(path);
    if (
      !(await rename(path, aside).then(
        () => true,
        () => false,
      ))
    )
      continue;
    if ((await readFile(aside, 'utf8').catch(() => '')) !== found) {
      await rename(aside, path).catch(() => {});
      throw new DataDirInUseError(root, 'it has just taken the folder over');
    }
    await rm(aside, { force: true });
    warn(`took over the lock of the data folder ${root}: ${stale}`);
  }
  throw new DataDirInUseError(root, `its lock ${path} keeps changing`);
}

/** What a sandbox whose lock of the data folder `root` was lost says, in one line. */
function takenOver(root: string): (lost: LostLock) => DataDirTakenOverError {
  return ({ removed, owner, unrefreshed }) => {
    const folder = displayText(root);
    if (removed) {
      return new DataDirTakenOverError(
        `the lock of the data folder ${folder} was removed while this sandbox held it (by hand, or by a sandbox that took the folder over and has ended); this one stops: start it again to serve the folder`,
      );
    }
    const who = owner
      ? displayText(`${lockRunShown(owner)}, started ${owner.startedAt}`)
      : 'its lock cannot be read';
    return new DataDirTakenOverError(
      `another sandbox took the data folder ${folder} over (${who}) while this one went ${unrefreshed} without refreshing its lock (was this machine suspended, or the process stopped?); this one stops: use the other one, or give this one another --data-dir`,
    );
  };
}

/**
 * The lock just created, refreshed and checked by a fence until it is released. The fence refreshes
 * it through a descriptor of the file created here, so a refresh never touches a successor's lock.
 */
async function held(root: string, path: string, me: LockOwner, now: () => number): Promise<DataLock> {
  // Released at exit however the process ends (an uncaught error, process.exit), while still ours.
  hold(me.id, path);
  const handle = await open(path, 'r').catch(async (error: unknown) => {
    await releaseLock(path, me.id);
    throw error;
  });
  const fence = new LockFence({
    id: me.id,
    refreshMs: me.refreshMs ?? LOCK_REFRESH_MS,
    now,
    files: { read: () => readFile(path, 'utf8'), touch: (at) => handle.utimes(at, at) },
    lostError: takenOver(root),
  });
  fence.start();
  let released: Promise<void> | undefined;
  return {
    confirm: () => fence.confirm(),
    lost: fence.lost,
    release: () => {
      released ??= (async () => {
        fence.stop();
        // Closed first: on NFS a removed file still open is kept under a `.nfs…` name until it is closed.
        await handle.close().catch(() => {});
        await releaseLock(path, me.id);
      })();
      return released;
    },
  };
}
