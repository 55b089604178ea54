/**
 * The locks this process holds, and their release: at a run's end, or at exit however the process
 * ends, each removed only while it is still this process's (a successor may have taken it over).
 */
import { readFileSync, unlinkSync } from 'node:fs';
import { readFile, rm } from 'node:fs/promises';
import { parseOwner } from './lock-owner.js';

/** Locks this process holds, by id → path: a lock with our pid is ours only if its id is here. */
const heldHere = new Map<string, string>();

/**
 * A crash (an uncaught error, process.exit) must not leave a lock that this process could still
 * remove; 'exit' hooks must be synchronous. Installed while a lock is held, removed after the last release.
 */
function releaseAllAtExit(): void {
  for (const [id, path] of heldHere) {
    try {
      if (parseOwner(readFileSync(path, 'utf8'))?.id === id) unlinkSync(path);
    } catch {
      // already gone, or nothing more can be done while exiting
    }
  }
  heldHere.clear();
}

/** Whether this process holds the lock of this id (a lock with our pid may be a successor's). */
export function isHeldHere(id: string): boolean {
  return heldHere.has(id);
}

export function hold(id: string, path: string): void {
  if (heldHere.size === 0) process.on('exit', releaseAllAtExit);
  heldHere.set(id, path);
}

function letGo(id: string): void {
  heldHere.delete(id);
  if (heldHere.size === 0) process.off('exit', releaseAllAtExit);
}

export async function releaseLock(path: string, id: string): Promise<void> {
  if (!heldHere.has(id)) return;
  letGo(id);
  const owner = parseOwner(await readFile(path, 'utf8').catch(() => ''));
  if (owner?.id === id) await rm(path, { force: true });
}
