/**
 * The one home for taking over Ctrl-C (SIGINT), SIGTERM and, for a command that asks, SIGHUP (a
 * closed terminal) while a command runs.
 *
 * Listeners other modules put on these signals are set aside meanwhile: the config store's `conf` →
 * `atomically` → `when-exit` (and the spinner's `signal-exit`) re-raises every SIGINT, SIGTERM or
 * SIGHUP it sees (`process.kill(pid, signal)`), which would turn one Ctrl-C into two or kill the
 * process before it has recorded what was in flight. They are put back by the returned function;
 * their `exit` hooks still run as usual.
 *
 * Signals that came while the modules loaded were held by bin/vredact.cjs (its listener carries
 * them as `heldSignals`): a command that takes the signals over is handed them at once, before it
 * starts anything; any other command obeys them as it starts (`obeyHeldSignals`).
 *
 * A signal's last listener is never taken off before its next one is put on: Node.js stops watching
 * a signal that has no listener, and a signal caught but not yet handed to JavaScript is then lost.
 */
const INTERRUPTS = ['SIGINT', 'SIGTERM'] as const;
const HELD = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

/** bin/vredact.cjs's listener: once `released`, it raises again the next signal it gets, and lets go. */
type HoldingListener = ((signal: NodeJS.Signals) => void) & {
  heldSignals: NodeJS.Signals[];
  released: boolean;
};

function isHolding(listener: unknown): listener is HoldingListener {
  return typeof listener === 'function' && Array.isArray((listener as Partial<HoldingListener>).heldSignals);
}

/** Releases the start-up's holding listeners; returns the signals they held, in the order they came. */
function releaseHeldSignals(): NodeJS.Signals[] {
  const held = new Set<NodeJS.Signals>();
  for (const signal of HELD) {
    for (const listener of process.rawListeners(signal)) {
      if (!isHolding(listener) || listener.released) continue;
      listener.released = true;
      for (const heard of listener.heldSignals) held.add(heard);
    }
  }
  return [...held];
}

/**
 * For a command that does not take the signals over: the first signal held while the modules
 * loaded is raised again, and ends the command as it would have; a later one finds nothing holding it.
 */
export function obeyHeldSignals(): void {
  const [first] = releaseHeldSignals();
  if (first) process.kill(process.pid, first);
}

/**
 * Puts `onSignal` on SIGINT and SIGTERM (and `onHangup` on SIGHUP) until the returned function is
 * called; a signal that came while the modules loaded is handed to it at once.
 */
export function takeOverInterrupts(
  onSignal: (signal: NodeJS.Signals) => void,
  onHangup?: () => void,
): () => void {
  const held = releaseHeldSignals();
  const handlers = new Map<NodeJS.Signals, (signal: NodeJS.Signals) => void>(
    INTERRUPTS.map((signal) => [signal, onSignal]),
  );
  if (onHangup) handlers.set('SIGHUP', onHangup);
  const setAside = [...handlers].map(([signal, onIt]) => {
    const others = process.rawListeners(signal) as Array<(...args: unknown[]) => void>;
    // Node.js passes the signal's number after its name: only the name is handed on.
    const handler = (received: NodeJS.Signals) => onIt(received);
    process.on(signal, handler);
    for (const listener of others) process.off(signal, listener);
    return { signal, handler, listeners: others.filter((listener) => !isHolding(listener)) };
  });
  // What came while the modules loaded counts as one interrupt, however many: nothing was in flight.
  const interrupt = held.find((signal) => signal !== 'SIGHUP');
  if (interrupt) onSignal(interrupt);
  if (held.includes('SIGHUP')) {
    if (onHangup) onHangup();
    else process.kill(process.pid, 'SIGHUP');
  }
  return () => {
    for (const { signal, handler, listeners } of setAside) {
      for (const listener of listeners) process.on(signal, listener);
      process.off(signal, handler);
    }
  };
}
