/** What a lock file says of its run: who holds it, since when, and how often it is refreshed. */
export interface LockOwner {
  pid: number;
  hostname: string;
  startedAt: string;
  /** Random, to tell our own lock from a successor's. */
  id: string;
  /**
   * How often its run refreshes the lock's modification time (ms); absent in a lock of an older
   * version, which is never judged from another host.
   */
  refreshMs?: number;
}

/** The owner a lock file names; undefined for torn or foreign content. */
export function parseOwner(text: string): LockOwner | undefined {
  try {
    const value = JSON.parse(text) as Partial<LockOwner>;
    if (typeof value.pid === 'number' && typeof value.hostname === 'string') {
      const refreshMs = value.refreshMs;
      return {
        pid: value.pid,
        hostname: value.hostname,
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
