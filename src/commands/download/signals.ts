import { ExitCode } from '../../errors.js';
import type { Logger } from '../../output/logger.js';
import { takeOverInterrupts } from '../../signals.js';

/**
 * Ctrl-C (or SIGTERM) during a download: the first aborts the transfers in flight, whose temporary
 * files are then removed, and the command exits 130; a second leaves at once.
 * (See takeOverInterrupts for why other listeners are set aside meanwhile.)
 */
export function abortOnInterrupt(log: Logger): { signal: AbortSignal; dispose: () => void } {
  const controller = new AbortController();
  const onSignal = () => {
    if (controller.signal.aborted) process.exit(ExitCode.interrupted);
    log.warn('interrupted: stopping the downloads in flight (Ctrl-C again to quit at once)');
    controller.abort(new Error('interrupted'));
  };
  return { signal: controller.signal, dispose: takeOverInterrupts(onSignal) };
}
