import { ExitCode } from '../../errors.js';
import type { Logger } from '../../output/logger.js';

const SIGNALS = ['SIGINT', 'SIGTERM'] as const;

/**
 * Ctrl-C (or SIGTERM) during a download: the first aborts the transfers in flight, whose temporary
 * files are then removed, and the command exits 130; a second leaves at once.
 *
 * Other modules' listeners are set aside meanwhile, as `redact` does: the config store's `conf` →
 * `atomically` → `when-exit` re-raises every SIGINT it sees, which would kill the process before the
 * temporary files are removed. They are put back by the returned function.
 */
export function abortOnInterrupt(log: Logger): { signal: AbortSignal; dispose: () => void } {
  const controller = new AbortController();
  const onSignal = () => {
    if (controller.signal.aborted) process.exit(ExitCode.interrupted);
    log.warn('interrupted: stopping the downloads in flight (Ctrl-C again to quit at once)');
    controller.abort(new Error('interrupted'));
  };
  const setAside = SIGNALS.map((signal) => {
    const listeners = process.rawListeners(signal) as Array<(...args: unknown[]) => void>;
    process.removeAllListeners(signal);
    process.on(signal, onSignal);
    return { signal, listeners };
  });
  return {
    signal: controller.signal,
    dispose: () => {
      for (const { signal, listeners } of setAside) {
        process.off(signal, onSignal);
        for (const listener of listeners) process.on(signal, listener);
      }
    },
  };
}
