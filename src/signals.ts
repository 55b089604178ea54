/**
 * The one home for taking over Ctrl-C (SIGINT) and SIGTERM while a command runs.
 *
 * Listeners other modules put on these signals are set aside meanwhile: the config store's `conf` →
 * `atomically` → `when-exit` re-raises every SIGINT it sees (`process.kill(pid, signal)`), which would
 * turn one Ctrl-C into two or kill the process before it has recorded what was in flight. They are
 * put back by the returned function; their `exit` hooks still run as usual.
 */
const SIGNALS = ['SIGINT', 'SIGTERM'] as const;

export function takeOverInterrupts(onSignal: () => void): () => void {
  const setAside = SIGNALS.map((signal) => {
    const listeners = process.rawListeners(signal) as Array<(...args: unknown[]) => void>;
    process.removeAllListeners(signal);
    process.on(signal, onSignal);
    return { signal, listeners };
  });
  return () => {
    for (const { signal, listeners } of setAside) {
      process.off(signal, onSignal);
      for (const listener of listeners) process.on(signal, listener);
    }
  };
}
