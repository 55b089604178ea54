/**
 * The one home of the interrupt rule of the commands that do work in flight (`redact`, `download`):
 * the first interrupt stops starting work and lets what is in flight finish; the second aborts it;
 * a third leaves at once. A closed stdout (`| head`) and a hangup are first interrupts; a full one is not.
 */
import { ExitCode } from './errors.js';
import type { IOStreams } from './output/iostreams.js';
import type { Logger } from './output/logger.js';
import { isReaderGone } from './output/stdout-failure.js';
import { takeOverInterrupts } from './signals.js';

/** What a command has in flight at one moment, as its work counts it. */
export interface InFlight {
  /** Transfers under way (uploads, downloads): a first interrupt lets them finish, a second aborts them. */
  transfers: number;
  /** Jobs waited for (`redact`): a first interrupt ends the waits, and the jobs stay pending. */
  jobs: number;
}

const NOTHING_IN_FLIGHT: InFlight = { transfers: 0, jobs: 0 };

/** What a command's work listens to: `stop` starts nothing new, `abort` ends what is in flight. */
export interface Interrupt {
  stop: AbortSignal;
  abort: AbortSignal;
  /**
   * Called by the work once it has something to count (the batch's recorder, the download pool):
   * how to count what is in flight, asked at each interrupt. The listener is set up before the work
   * exists, so that an interrupt at any point is obeyed; until then nothing is in flight.
   */
  countInFlight?: (count: () => InFlight) => void;
}

/**
 * What a command's interrupts are about. Every line about an interrupt is worded here, once, for
 * `redact` and `download` alike: what it does now and what the next one would do.
 */
export interface InterruptWords {
  /** What the command has in flight, one of them (`upload`); undefined when it never has any (a dry run). */
  transfer: string | undefined;
  /** After "run the same command again to ": what a re-run does with what is left. */
  rerun: string;
}

/** `the upload`, `the 3 uploads`. */
function theTransfers(count: number, transfer: string): string {
  return count === 1 ? `the ${transfer}` : `the ${count} ${transfer}s`;
}

/** How to stop what a first interrupt lets finish, after the signal that caused it. */
function stopNow(signal: NodeJS.Signals | undefined, count: number): string {
  const them = count === 1 ? 'it' : 'them';
  if (signal === 'SIGTERM') return `; SIGTERM or Ctrl-C again stops ${them} now`;
  if (signal === 'SIGINT') return `; press Ctrl-C again to stop ${them} now`;
  return '';
}

/**
 * What a first interrupt does, after its cause (`interrupted`, `hangup`, `the output was closed`),
 * given what is in flight: transfers finish, waits for jobs end (stages.ts, collect.ts).
 */
function firstLine(cause: string, words: InterruptWords, now: InFlight, signal?: NodeJS.Signals): string {
  const { transfer } = words;
  if (transfer === undefined) return `${cause}: stopping`;
  const { transfers, jobs } = now;
  const waits =
    jobs === 1
      ? 'stopping the wait for 1 job (it stays pending for the next run)'
      : `stopping the waits for ${jobs} jobs (they stay pending for the next run)`;
  if (transfers === 0)
    return jobs === 0 ? `${cause}: no ${transfer} in flight; exiting` : `${cause}: ${waits}; exiting`;
  const finishing = `finishing ${theTransfers(transfers, transfer)} in flight, then exiting`;
  return `${cause}: ${jobs > 0 ? `${waits} and ` : ''}${finishing}${stopNow(signal, transfers)}`;
}

/** The first line of an interrupt by a signal, saying how to stop what is in flight now. */
export function firstInterruptLine(signal: NodeJS.Signals, words: InterruptWords, now: InFlight): string {
  return firstLine(signal === 'SIGTERM' ? 'interrupted (SIGTERM)' : 'interrupted', words, now, signal);
}

/** The second interrupt's line: what is in flight is aborted. */
export function secondInterruptLine(words: InterruptWords, now: InFlight): string {
  if (words.transfer === undefined) return 'stopping now';
  const what =
    now.transfers === 0
      ? `no ${words.transfer} in flight to abort`
      : `aborting ${theTransfers(now.transfers, words.transfer)} in flight`;
  return `${what}; a third interrupt exits at once`;
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
  /** What is in flight now, as the work counts it (nothing before it has begun). */
  inFlight(): InFlight;
}

export function createInterruptController(): InterruptController {
  const stop = new AbortController();
  const abort = new AbortController();
  let count = 0;
  let countInFlight = (): InFlight => NOTHING_IN_FLIGHT;
  const interrupt = () => {
    count++;
    if (count === 1) stop.abort(new Error('interrupted'));
    else abort.abort(new Error('interrupted twice'));
    return count;
  };
  return {
    signals: {
      stop: stop.signal,
      abort: abort.signal,
      countInFlight: (count) => {
        countInFlight = count;
      },
    },
    interrupt,
    stop() {
      if (count === 0) interrupt();
    },
    inFlight: () => countInFlight(),
  };
}

/**
 * Within this long of an interrupt, the same signal again is that interrupt sent twice, not a second
 * one: `timeout` sends its signal to vredact and then to vredact's process group, and `npx` forwards
 * a Ctrl-C that the terminal has sent to vredact already. Unless the system merged the two, the
 * second aborted the uploads that the first was letting finish. A person's second Ctrl-C, after the
 * line that asks for it, comes later.
 */
export const SAME_SIGNAL_MS = 100;

/**
 * Routes SIGINT (Ctrl-C; the terminal is kept in its normal mode so the keyboard raises it), SIGTERM
 * (cron, systemd), SIGHUP and a closed stdout to the controller, saying so in the command's `words`.
 * The first stops starting new work and lets what is in flight finish; the second aborts it; a third
 * leaves at once (the same signal within SAME_SIGNAL_MS is not counted again). Returns a function
 * that undoes it all.
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
  readClock: () => number = () => performance.now(),
): () => void {
  let last: { signal: NodeJS.Signals; at: number } | undefined;
  const onSignal = (signal: NodeJS.Signals) => {
    const at = readClock();
    if (last?.signal === signal && at - last.at < SAME_SIGNAL_MS) return;
    last = { signal, at };
    // Counted before the interrupt takes effect: what it is about, not what is left once it has.
    const now = controller.inFlight();
    const count = controller.interrupt();
    if (count === 1) {
      log.warn(firstInterruptLine(signal, words, now));
    } else if (count === 2) {
      log.warn(secondInterruptLine(words, now));
    } else {
      process.exit(ExitCode.interrupted);
    }
  };
  const onHangup = hangupListener(controller, io.stdoutIsTTY || io.stderrIsTTY, log, words);
  const restoreSignals = takeOverInterrupts(onSignal, onHangup);
  // A stdout that fails otherwise (a full disk) lost data that was wanted: the run goes on, and its
  // exit says so (src/output/stdout-failure.ts).
  const unlisten = io.onStdoutClosed((error) => {
    if (!isReaderGone(error)) return;
    log.info(firstLine('the output was closed', words, controller.inFlight()));
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
    log.warn(firstLine('hangup', words, controller.inFlight()));
    controller.stop();
  };
}
