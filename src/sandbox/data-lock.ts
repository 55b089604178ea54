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
 */
import { randomBytes } from 'node:crypto';
import { readFileSync, unlinkSync } from 'node:fs';
import { type FileHandle, open, readFile, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { temporaryNameFor } from '../fs/atomic-write.js';
import { createPrivateFileExclusively } from '../fs/exclusive-create.js';
import { processAlive, writerMayBeAlive } from '../fs/process-info.js';
import { sameProcessSpace, thisProcessSpace } from '../fs/process-space.js';
import { LOCK_REFRESH_MS, leaseLapsed, leaseMinutes } from '../redact/lock-lease.js';
import { type LockOwner, lockRunShown, parseOwner } from '../redact/lock-owner.js';

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

export interface DataLock {
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
    if (await createPrivateFileExclusively(path, text))
      return held(path, text, me.refreshMs ?? LOCK_REFRESH_MS);
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

/**
 * The lock just created, touched every `refreshMs` through a descriptor of the file created here (so
 * a touch never renews a successor's lock) until it is released.
 */
async function held(path: string, text: string, refreshMs: number): Promise<DataLock> {
  // A crash (an uncaught error, process.exit) must not leave the lock: 'exit' hooks are synchronous.
  const atExit = () => {
    try {
      if (readFileSync(path, 'utf8') === text) unlinkSync(path);
    } catch {
      // already gone, or nothing more can be done while exiting
    }
  };
  process.on('exit', atExit);
  const handle: FileHandle | undefined = await open(path, 'r').catch(() => undefined);
  // A touch that fails (a full disk, a network folder away) is tried again at the next refresh.
  const refresh = setInterval(() => {
    const at = new Date();
    void handle?.utimes(at, at).catch(() => {});
  }, refreshMs).unref();
  let released: Promise<void> | undefined;
  return {
    release: () => {
      released ??= (async () => {
        clearInterval(refresh);
        process.off('exit', atExit);
        // Closed first: on NFS a removed file still open is kept under a `.nfs…` name until it is closed.
        await handle?.close().catch(() => {});
        if ((await readFile(path, 'utf8').catch(() => '')) === text) await rm(path, { force: true });
      })();
      return released;
    },
  };
}
