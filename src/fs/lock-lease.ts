/**
 * Locks seen from another host, or from another container or boot of this host name
 * (src/fs/process-space.ts): pids say nothing there, so a run refreshes its lock's modification time
 * every LOCK_REFRESH_MS, and such a lock is stale once it has gone unrefreshed for LEASE_REFRESHES of
 * them (the hosts' clocks are taken to agree within minutes). Before, such a lock was never judged: a
 * host that died (a machine of an NFS share, a pod of a Kubernetes CronJob, which gets a new host name
 * every night) left a lock that kept every later run out (exit 2) until someone deleted it.
 * A lock of an older version declares no refresh and is still never judged by its lease.
 */
import { stat } from 'node:fs/promises';
import { type LockOwner, lockRunShown } from './lock-owner.js';

export const LOCK_REFRESH_MS = 30_000;
const LEASE_REFRESHES = 20;
/**
 * A run's lease, 10 min. Also how long a temporary file whose writer cannot be judged here (another
 * process space's, sweep.ts) may go untouched: a live writer writes it as its bytes come.
 */
export const LEASE_MS = LOCK_REFRESH_MS * LEASE_REFRESHES;
/**
 * Tests only: a shorter refresh, and so a shorter lease, for a run or a sandbox of the built command
 * (a lapsed lease in seconds rather than 10 min). Not a setting: a user's run or sandbox always
 * refreshes every 30 s.
 */
const TEST_REFRESH_ENV = 'VREDACT_TEST_LOCK_REFRESH_MS';

/** How often a run (or a sandbox) refreshes its lock: LOCK_REFRESH_MS, or a test's shorter one. */
export function lockRefreshMs(env: NodeJS.ProcessEnv): number {
  const asked = Number(env[TEST_REFRESH_ENV]);
  return Number.isInteger(asked) && asked >= 50 && asked < LOCK_REFRESH_MS ? asked : LOCK_REFRESH_MS;
}

/** How long a lock refreshed every `refreshMs` may go unrefreshed, in minutes (for messages). */
export function leaseMinutes(refreshMs: number): number {
  return Math.round((refreshMs * LEASE_REFRESHES) / 60_000);
}

/** When a lock's run last refreshed it (its modification time); undefined when it cannot be read. */
async function refreshedAt(path: string): Promise<number | undefined> {
  return (await stat(path).catch(() => undefined))?.mtimeMs;
}

/**
 * When a lock judged by its lease lapses unless refreshed before (ms, by the file's time); undefined
 * for a lock never judged by one, or one that cannot be read.
 */
export async function leaseEndMs(path: string, owner: LockOwner): Promise<number | undefined> {
  if (owner.refreshMs === undefined) return undefined;
  const mtime = await refreshedAt(path);
  return mtime === undefined ? undefined : mtime + owner.refreshMs * LEASE_REFRESHES;
}

/**
 * Why a lock judged by its lease (another host's, container's or boot's) is stale; undefined while it
 * holds. `holder` names what holds such a lock in the message: a `run` of redact, a `sandbox`.
 */
export async function leaseLapsed(
  path: string,
  owner: LockOwner,
  now: number,
  holder = 'run',
): Promise<string | undefined> {
  if (owner.refreshMs === undefined) return undefined;
  const mtime = await refreshedAt(path);
  if (mtime === undefined || now - mtime <= owner.refreshMs * LEASE_REFRESHES) return undefined;
  const minutes = Math.floor((now - mtime) / 60_000);
  return `its ${holder} (${lockRunShown(owner)}, started ${owner.startedAt}) has not refreshed it for ${minutes} min (a ${holder} refreshes its lock every ${Math.round(owner.refreshMs / 1000)} s)`;
}
