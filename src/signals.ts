/**
 * The one home for taking over Ctrl-C (SIGINT), SIGTERM and, for a command that asks, SIGHUP (a
 * closed terminal) while a command runs.
 *
 * Listeners other modules put on these signals are set aside meanwhile: the config store's `conf` →
 * `atomically` → `when-exit` (and the spinner's `signal-exit`) re-raises every SIGINT, SIGTERM or
 * SIGHUP it sees (`process.kill(pid, signal)`), which would turn one Ctrl-C into two or kill the
 * process before it has recorded what was in flight. They are put back by the returned function;
 * their `exit` hooks still run as usual.
 */
const INTERRUPTS = ['SIGINT', 'SIGTERM'] as const;

export function takeOverInterrupts(onSignal: () => void, onHangup?: () => void): () => void {
  const handlers = new Map<NodeJS.Signals, () => void>(INTERRUPTS.map((signal) => [signal, onSignal]));
  if (onHangup) handlers.set('SIGHUP', onHangup);
  const setAside = [...handlers].map(([signal, handler]) => {
    const listeners = process.rawListeners(signal) as Array<(...args: unknown[]) => void>;
    process.removeAllListeners(signal);
    process.on(signal, handler);
    return { signal, handler, listeners };
  });
  return () => {
    for (const { signal, handler, listeners } of setAside) {
      process.off(signal, handler);
      for (const listener of listeners) process.on(signal, listener);
    }
  };
}
