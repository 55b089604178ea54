import { elsewhereOnThisHostName, type ProcessSpace } from './process-space.js';

/**
 * What a lock file says of its run: who holds it, where (its host name, boot and pid namespace: see
 * src/fs/process-space.ts), since when, and how often it is refreshed.
 */
export interface LockOwner extends ProcessSpace {
  pid: number;
  startedAt: string;
  /** Random, to tell our own lock from a successor's. */
  id: string;
  /**
   * How often its run refreshes the lock's modification time (ms); absent in a lock of an older
   * version, which is never judged by its lease.
   */
  refreshMs?: number;
}

/** A field of text as the file has it: anything else (damage, a foreign writer) counts as absent. */
const text = (value: unknown): string | undefined =>
  typeof value === 'string' && value !== '' ? value : undefined;

/** The owner a lock file names; undefined for torn or foreign content. */
export function parseOwner(content: string): LockOwner | undefined {
  try {
    const value = JSON.parse(content) as Partial<LockOwner>;
    if (typeof value.pid === 'number' && typeof value.hostname === 'string') {
      const refreshMs = value.refreshMs;
      const bootId = text(value.bootId);
      const pidNamespace = text(value.pidNamespace);
      return {
        pid: value.pid,
        hostname: value.hostname,
        ...(bootId === undefined ? {} : { bootId }),
        ...(pidNamespace === undefined ? {} : { pidNamespace }),
        startedAt: String(value.startedAt ?? ''),
        id: String(value.id ?? ''),
        ...(typeof refreshMs === 'number' && refreshMs > 0 ? { refreshMs } : {}),
      };
    }
  } catch {
    // torn or foreign content
  }
  return undefined;
}

/** "pid 7 on idx-0", and " in another container (or another boot)" when so: a lock's run, as shown (unescaped). */
export function lockRunShown(owner: LockOwner): string {
  return `pid ${owner.pid} on ${owner.hostname}${elsewhereOnThisHostName(owner)}`;
}
