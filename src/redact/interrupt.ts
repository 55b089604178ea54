import { ExitCode } from '../errors.js';
import type { IOStreams } from '../output/iostreams.js';
import type { Logger } from '../output/logger.js';
import { takeOverInterrupts } from '../signals.js';
import type { Interrupt } from './engine.js';

/**
 * Ctrl-C as a controller: the first interrupt stops starting work, the second aborts what is in
 * flight. A closed stdout (`| head`) counts as a first interrupt.
 */
export interface InterruptController {
  readonly signals: Interrupt;
  /** Registers one interrupt; returns how many there have been. */
  interrupt(): number;
  /** A first interrupt, unless there was one already (never escalates to an abort). */
  stop(): void;
}

export function createInterruptController(): InterruptController {
  const stop = new AbortController();
  const abort = new AbortController();
  let count = 0;
  const interrupt = () => {
    count++;
    if (count === 1) stop.abort(new Error('interrupted'));
    else abort.abort(new Error('interrupted twice'));
    return count;
  };
  return {
    signals: { stop: stop.signal, abort: abort.signal },
    interrupt,
    stop() {
      if (count === 0) interrupt();
    },
  };
}

/**
 * Routes SIGINT (Ctrl-C; the terminal is kept in its normal mode so the keyboard raises it), SIGTERM
 * (cron, systemd) and a closed stdout to the controller. The first stops starting new uploads and
 * lets those in flight finish; the second aborts them; a third leaves at once. Returns a function
 * that undoes it all.
 */
export function listenForInterrupts(
  controller: InterruptController,
  io: Pick<IOStreams, 'onStdoutClosed'>,
  log: Logger,
  dryRun = false,
): () => void {
  // A dry run has nothing in flight: it stops checking and ends.
  const stopping = dryRun
    ? 'the dry run stops'
    : 'finishing the uploads in flight and recording pending jobs (Ctrl-C again to abort them)';
  const onSignal = () => {
    const count = controller.interrupt();
    if (count === 1) {
      log.warn(`interrupted: ${stopping}`);
    } else if (count === 2) {
      log.warn('aborting the requests in flight');
    } else {
      process.exit(ExitCode.interrupted);
    }
  };
  const restoreSignals = takeOverInterrupts(onSignal);
  const unlisten = io.onStdoutClosed((error) => {
    const why = error.code === 'EPIPE' ? 'the output was closed' : `the output failed (${error.message})`;
    log.info(
      `${why}: ${dryRun ? 'the dry run stops' : 'starting nothing new, finishing the uploads in flight'}`,
    );
    controller.stop();
  });
  return () => {
    unlisten();
    restoreSignals();
  };
}
