/**
 * The one home of the interrupt rule of the commands that do work in flight (`redact`, `download`):
 * the first interrupt stops starting work and lets what is in flight finish; the second aborts it;
 * a third leaves at once. A closed stdout (`| head`) and a hangup are first interrupts.
 */
import { ExitCode } from './errors.js';
import type { IOStreams } from './output/iostreams.js';
import type { Logger } from './output/logger.js';
import { takeOverInterrupts } from './signals.js';

/** What a command's work listens to: `stop` starts nothing new, `abort` ends what is in flight. */
export interface Interrupt {
  stop: AbortSignal;
  abort: AbortSignal;
}

/** How a command says what a first interrupt does, in its own words. */
export interface InterruptWords {
  /** After "interrupted: " and "hangup: ": `finishing the downloads in flight`. */
  stopping: string;
  /** After `stopping` at Ctrl-C, when a second one aborts something: ` (Ctrl-C again to abort them)`. */
  again: string;
  /** After "the output was closed: ": `starting nothing new, finishing the downloads in flight`. */
  outputClosed: string;
}

/** Ctrl-C as a controller (see above). */
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
 * (cron, systemd), SIGHUP and a closed stdout to the controller, saying so in the command's `words`.
 * The first stops starting new work and lets what is in flight finish; the second aborts it; a third
 * leaves at once. Returns a function that undoes it all.
 *
 * A hangup (the terminal closed, an ssh session dropped) is only ever a first interrupt: the shell
 * of a closed terminal may send it twice, and nobody is left to mean the second. It is ignored when
 * neither stdout nor stderr is a terminal, as under nohup, which sends them elsewhere when they are
 * one. Whether SIGHUP was ignored at the start cannot tell nohup apart: Node.js sets every signal it
 * inherits ignored (but SIGPIPE and SIGXFSZ) back to the default before any of vredact runs, so
 * /proc/self/status always shows SIGHUP not ignored, and a run under nohup was killed by the hangup.
 */
export function listenForInterrupts(
  controller: InterruptController,
  io: Pick<IOStreams, 'onStdoutClosed' | 'stdoutIsTTY' | 'stderrIsTTY'>,
  log: Logger,
  words: InterruptWords,
): () => void {
  const onSignal = () => {
    const count = controller.interrupt();
    if (count === 1) {
      log.warn(`interrupted: ${words.stopping}${words.again}`);
    } else if (count === 2) {
      log.warn('aborting the requests in flight');
    } else {
      process.exit(ExitCode.interrupted);
    }
  };
  const onHangup = hangupListener(controller, io.stdoutIsTTY || io.stderrIsTTY, log, words.stopping);
  const restoreSignals = takeOverInterrupts(onSignal, onHangup);
  const unlisten = io.onStdoutClosed((error) => {
    const why = error.code === 'EPIPE' ? 'the output was closed' : `the output failed (${error.message})`;
    log.info(`${why}: ${words.outputClosed}`);
    controller.stop();
  });
  return () => {
    unlisten();
    restoreSignals();
  };
}

/** A hangup: a first interrupt for a run on a terminal, said once; nothing otherwise (see above). */
function hangupListener(
  controller: InterruptController,
  onTerminal: boolean,
  log: Logger,
  stopping: string,
): () => void {
  let heard = false;
  return () => {
    const first = !heard;
    heard = true;
    if (!onTerminal) {
      if (first) log.info('hangup ignored: no output goes to a terminal (SIGINT or SIGTERM stops the run)');
      return;
    }
    if (controller.signals.stop.aborted) return;
    log.warn(`hangup: ${stopping}`);
    controller.stop();
  };
}
