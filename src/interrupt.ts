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

/**
 * What a command's interrupts are about. Every line about an interrupt is worded here, once, for
 * `redact` and `download` alike: what it does now and what the next one would do.
 */
export interface InterruptWords {
  /** What the command has in flight, plural (`uploads`); undefined when it never has any (a dry run). */
  inFlight: string | undefined;
  /** After "run the same command again to ": what a re-run does with what is left. */
  rerun: string;
}

/** What a first interrupt does, after its cause (`interrupted`, `hangup`, `the output was closed`). */
function firstLine(cause: string, words: InterruptWords, again = ''): string {
  if (words.inFlight === undefined) return `${cause}: stopping`;
  return `${cause}: finishing the ${words.inFlight} in flight, then exiting${again}`;
}

/** The first line of an interrupt by a signal, saying how to stop what is in flight now. */
export function firstInterruptLine(signal: NodeJS.Signals, words: InterruptWords): string {
  return signal === 'SIGTERM'
    ? firstLine('interrupted (SIGTERM)', words, '; SIGTERM or Ctrl-C again stops them now')
    : firstLine('interrupted', words, '; press Ctrl-C again to stop them now');
}

/** The second interrupt's line: what is in flight is aborted. */
export function secondInterruptLine(words: InterruptWords): string {
  if (words.inFlight === undefined) return 'stopping now';
  return `aborting the ${words.inFlight} in flight; a third interrupt exits at once`;
}

/** The last line of an interrupted run, after its summary: how to finish the work. */
export function interruptedLine(words: InterruptWords): string {
  return `interrupted: run the same command again to ${words.rerun}`;
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
  const onSignal = (signal: NodeJS.Signals, held = false) => {
    const count = controller.interrupt();
    if (count === 1) {
      // Held while the modules loaded: nothing is in flight yet.
      log.warn(firstInterruptLine(signal, held ? { ...words, inFlight: undefined } : words));
    } else if (count === 2) {
      log.warn(secondInterruptLine(words));
    } else {
      process.exit(ExitCode.interrupted);
    }
  };
  const onHangup = hangupListener(controller, io.stdoutIsTTY || io.stderrIsTTY, log, words);
  const restoreSignals = takeOverInterrupts(onSignal, onHangup);
  const unlisten = io.onStdoutClosed((error) => {
    const why = error.code === 'EPIPE' ? 'the output was closed' : `the output failed (${error.message})`;
    log.info(firstLine(why, words));
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
  words: InterruptWords,
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
    log.warn(firstLine('hangup', words));
    controller.stop();
  };
}
