/**
 * One run per output folder: `<out-dir>/.vredact/lock`, created exclusively (`wx`) and holding the
 * owner's pid, host name and start time. A lock left by a run that died (same host, pid gone) is
 * taken over with a warning; any other lock makes the second run refuse before sending anything.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, open, readFile, rename, rm, stat } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { CliError, ExitCode } from '../errors.js';
import type { Logger } from '../output/logger.js';
import { STATE_DIR } from './journal.js';

export const LOCK_NAME = 'lock';
/** An unreadable lock (torn write) younger than this may be a run that is just starting. */
const UNREADABLE_GRACE_MS = 60_000;

export interface LockOwner {
  pid: number;
  hostname: string;
  startedAt: string;
  /** Random, to tell our own lock from a successor's. */
  id: string;
}

/** Ids of the locks this process holds: a lock with our pid is ours only if its id is here. */
const heldHere = new Set<string>();

export interface HeldLock {
  path: string;
  release(): Promise<void>;
}

export class LockHeldError extends CliError {
  override name = 'LockHeldError';
  constructor(message: string, hint: string) {
    super(message, ExitCode.usage, hint);
  }
}

/** Whether a process with this pid runs on this host (EPERM: it exists but is not ours). */
export function processAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function parseOwner(text: string): LockOwner | undefined {
  try {
    const value = JSON.parse(text) as Partial<LockOwner>;
    if (typeof value.pid === 'number' && typeof value.hostname === 'string') {
      return {
        pid: value.pid,
        hostname: value.hostname,
        startedAt: String(value.startedAt ?? ''),
        id: String(value.id ?? ''),
      };
    }
  } catch {
    // torn or foreign content
  }
  return undefined;
}

export function lockPath(outDir: string): string {
  return join(outDir, STATE_DIR, LOCK_NAME);
}

/** Takes the lock of an output folder, or throws LockHeldError (exit 2). */
export async function acquireLock(
  outDir: string,
  log: Logger,
  now: () => number = Date.now,
  options: { name?: string } = {},
): Promise<HeldLock> {
  const path = options.name ? join(outDir, STATE_DIR, options.name) : lockPath(outDir);
  await mkdir(join(outDir, STATE_DIR), { recursive: true });
  const me: LockOwner = {
    pid: process.pid,
    hostname: hostname(),
    startedAt: new Date(now()).toISOString(),
    id: randomBytes(8).toString('hex'),
  };
  for (let attempt = 0; attempt < 5; attempt++) {
    try {
      const handle = await open(path, 'wx');
      try {
        await handle.writeFile(`${JSON.stringify(me)}\n`);
        await handle.sync();
      } finally {
        await handle.close();
      }
      heldHere.add(me.id);
      return { path, release: () => releaseLock(path, me.id) };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const text = await readFile(path, 'utf8').catch(() => undefined);
    if (text === undefined) continue; // removed meanwhile: try again
    const owner = parseOwner(text);
    let stale: string | undefined;
    if (owner) {
      const sameHost = owner.hostname === me.hostname;
      // Our own pid in a lock we did not write: a previous run of a container that reuses pids.
      const ours = owner.pid === process.pid;
      if (sameHost && (ours ? !heldHere.has(owner.id) : !processAlive(owner.pid))) {
        stale = `a previous run (pid ${owner.pid}, started ${owner.startedAt}) ended without releasing it`;
      }
    } else {
      const age = now() - ((await stat(path).catch(() => undefined))?.mtimeMs ?? now());
      if (age > UNREADABLE_GRACE_MS) stale = 'it is unreadable and old';
    }
    if (!stale) {
      const who = owner
        ? `pid ${owner.pid} on ${owner.hostname}, started ${owner.startedAt}`
        : 'a run that is starting';
      throw new LockHeldError(
        `another vredact run is using the output folder ${outDir} (${who})`,
        `wait for it to finish; if no run is active, delete ${path}`,
      );
    }
    // Move the stale lock aside (atomic), check it is the one judged stale, then try again.
    const aside = `${path}.stale-${process.pid}-${randomBytes(4).toString('hex')}`;
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
        `another vredact run is using the output folder ${outDir}`,
        `wait for it to finish`,
      );
    }
    await rm(aside, { force: true });
    log.warn(`took over the lock of ${outDir}: ${stale}`);
  }
  throw new LockHeldError(
    `could not take the lock ${path}`,
    'try again; if no run is active, delete the lock file',
  );
}

async function releaseLock(path: string, id: string): Promise<void> {
  heldHere.delete(id);
  const owner = parseOwner(await readFile(path, 'utf8').catch(() => ''));
  if (owner?.id === id) await rm(path, { force: true });
}
