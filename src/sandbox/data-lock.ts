/**
 * One sandbox per data folder: `<data-dir>/sandbox.lock` holds the owner's pid, host and start time.
 * Two sandboxes on one folder each kept their own list of the jobs, wrote job files the other never
 * read, and the second emptied `tmp/` under the first's uploads in progress. A lock left by a sandbox
 * that died on this host (its pid gone, or now another process's) is taken over; one of another host
 * (a folder shared over the network) is respected: a pid says nothing there.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync, unlinkSync } from 'node:fs';
import { readFile, rename, rm } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { temporaryNameFor } from '../fs/atomic-write.js';
import { createPrivateFileExclusively } from '../fs/exclusive-create.js';
import { processAlive, writerMayBeAlive } from '../fs/process-info.js';

export const DATA_LOCK_NAME = 'sandbox.lock';

interface Owner {
  pid: number;
  hostname: string;
  startedAt: string;
  /** Random: tells this lock from a successor's, when it is released. */
  id: string;
}

/** Another sandbox holds the data folder; `owner` says which, as shown. */
export class DataDirInUseError extends Error {
  override name = 'DataDirInUseError';
  constructor(
    readonly dataDir: string,
    readonly owner: string,
  ) {
    super(`another sandbox is using the data folder ${dataDir} (${owner})`);
  }
}

export interface DataLock {
  /** Removes the lock, if it is still this one. */
  release(): Promise<void>;
}

function parseOwner(text: string): Owner | undefined {
  try {
    const value = JSON.parse(text) as Partial<Owner>;
    if (typeof value.pid !== 'number' || typeof value.hostname !== 'string') return undefined;
    return {
      pid: value.pid,
      hostname: value.hostname,
      startedAt: String(value.startedAt),
      id: String(value.id),
    };
  } catch {
    return undefined;
  }
}

/**
 * Why a lock found in place is stale, or undefined while its sandbox may run. An unreadable lock is
 * damage: a lock appears whole (createPrivateFileExclusively).
 */
function staleReason(owner: Owner | undefined): string | undefined {
  if (!owner) return 'it is unreadable';
  if (owner.hostname !== hostname()) return undefined;
  const gone = `its sandbox (pid ${owner.pid}, started ${owner.startedAt}) ended without removing it`;
  if (!processAlive(owner.pid)) return gone;
  return writerMayBeAlive(owner.pid, Date.parse(owner.startedAt)) ? undefined : gone;
}

const shown = (owner: Owner | undefined) =>
  owner ? `pid ${owner.pid} on ${owner.hostname}, started ${owner.startedAt}` : 'its lock is being written';

/** Takes the lock of `root` (a folder that exists), or throws DataDirInUseError or the file system's error. */
export async function lockDataDir(root: string, warn: (line: string) => void): Promise<DataLock> {
  const path = join(root, DATA_LOCK_NAME);
  const me: Owner = {
    pid: process.pid,
    hostname: hostname(),
    startedAt: new Date().toISOString(),
    id: randomBytes(8).toString('hex'),
  };
  const text = `${JSON.stringify(me)}\n`;
  for (let attempt = 0; attempt < 5; attempt++) {
    if (await createPrivateFileExclusively(path, text)) return held(path, text);
    const found = await readFile(path, 'utf8').catch(() => undefined);
    if (found === undefined) continue; // released meanwhile
    const owner = parseOwner(found);
    const stale = staleReason(owner);
    if (!stale) throw new DataDirInUseError(root, shown(owner));
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

function held(path: string, text: string): DataLock {
  // A crash (an uncaught error, process.exit) must not leave the lock: 'exit' hooks are synchronous.
  const atExit = () => {
    try {
      if (readFileSync(path, 'utf8') === text) unlinkSync(path);
    } catch {
      // already gone, or nothing more can be done while exiting
    }
  };
  process.on('exit', atExit);
  let released: Promise<void> | undefined;
  return {
    release: () => {
      released ??= (async () => {
        process.off('exit', atExit);
        if ((await readFile(path, 'utf8').catch(() => '')) === text) await rm(path, { force: true });
      })();
      return released;
    },
  };
}
