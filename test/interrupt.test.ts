import { PassThrough, Readable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import {
  createInterruptController,
  type InFlight,
  interruptedLine,
  type InterruptController,
  type InterruptWords,
  listenForInterrupts,
  SAME_SIGNAL_MS,
} from '../src/interrupt.js';
import { createIOStreams } from '../src/output/iostreams.js';
import { recordingLogger } from './helpers/logger.js';

const WORDS: InterruptWords = {
  transfer: 'upload',
  rerun: 'send the files not yet done',
};

/** A controller whose work counts `now` in flight (as the batch's recorder or the download pool would). */
function counting(now: InFlight): InterruptController {
  const controller = createInterruptController();
  controller.signals.countInFlight?.(() => now);
  return controller;
}

/** A clock a second later at each reading: each signal emitted is an interrupt of its own. */
function ticking(): () => number {
  let now = 0;
  return () => (now += 1000);
}

/** Streams whose stdout is a terminal when `terminal` says so. */
function io(terminal = false) {
  const stdout = Object.assign(new PassThrough(), { isTTY: terminal });
  return createIOStreams({
    streams: { stdout, stderr: new PassThrough(), stdin: Readable.from([]) },
    env: {},
    color: false,
    quiet: false,
    verbose: false,
    json: false,
  });
}

describe('the interrupt controller', () => {
  it('stops at the first interrupt and aborts at the second', () => {
    const controller = createInterruptController();
    expect(controller.interrupt()).toBe(1);
    expect(controller.signals.stop.aborted).toBe(true);
    expect(controller.signals.abort.aborted).toBe(false);
    expect(controller.interrupt()).toBe(2);
    expect(controller.signals.abort.aborted).toBe(true);
  });

  it('stop() is a first interrupt that never escalates', () => {
    const controller = createInterruptController();
    controller.stop();
    controller.stop();
    expect(controller.signals.stop.aborted).toBe(true);
    expect(controller.signals.abort.aborted).toBe(false);
  });
});

describe('listenForInterrupts', () => {
  let dispose: (() => void) | undefined;
  afterEach(() => {
    dispose?.();
    dispose = undefined;
  });

  it('turns SIGINT into interrupts, setting other listeners aside until disposed', () => {
    const other = () => {};
    process.on('SIGINT', other);
    const controller = counting({ transfers: 2, jobs: 0 });
    const log = recordingLogger();
    dispose = listenForInterrupts(controller, io(), log, WORDS, ticking());
    expect(process.listeners('SIGINT')).not.toContain(other);
    process.emit('SIGINT', 'SIGINT');
    expect(controller.signals.stop.aborted).toBe(true);
    process.emit('SIGINT', 'SIGINT');
    expect(controller.signals.abort.aborted).toBe(true);
    // What each does, and what the next one would do.
    expect(log.lines).toEqual([
      'warn: interrupted: finishing the 2 uploads in flight, then exiting; press Ctrl-C again to stop them now',
      'warn: aborting the 2 uploads in flight; a third interrupt exits at once',
    ]);
    dispose();
    dispose = undefined;
    expect(process.listeners('SIGINT')).toContain(other);
    process.off('SIGINT', other);
  });

  it('a closed stdout (EPIPE) is a first interrupt, said in one line', () => {
    const streams = io();
    const controller = counting({ transfers: 3, jobs: 0 });
    const log = recordingLogger();
    dispose = listenForInterrupts(controller, streams, log, WORDS, ticking());
    streams.stdout.emit('error', Object.assign(new Error('write EPIPE'), { code: 'EPIPE' }));
    expect(controller.signals.stop.aborted).toBe(true);
    expect(controller.signals.abort.aborted).toBe(false);
    expect(log.lines).toEqual([
      'info: the output was closed: finishing the 3 uploads in flight, then exiting',
    ]);
  });

  it('a hangup on a terminal is a first interrupt, said once, and never escalates to an abort', () => {
    const other = () => {};
    process.on('SIGHUP', other);
    const controller = counting({ transfers: 1, jobs: 0 });
    const log = recordingLogger();
    dispose = listenForInterrupts(controller, io(true), log, WORDS, ticking());
    expect(process.listeners('SIGHUP')).not.toContain(other);
    process.emit('SIGHUP', 'SIGHUP');
    process.emit('SIGHUP', 'SIGHUP');
    expect(controller.signals.stop.aborted).toBe(true);
    expect(controller.signals.abort.aborted).toBe(false);
    expect(log.lines).toEqual(['warn: hangup: finishing the upload in flight, then exiting']);
    dispose();
    dispose = undefined;
    expect(process.listeners('SIGHUP')).toContain(other);
    process.off('SIGHUP', other);
  });

  it('a hangup with no output on a terminal (nohup) is ignored, said once', () => {
    const controller = createInterruptController();
    const log = recordingLogger();
    dispose = listenForInterrupts(controller, io(false), log, WORDS, ticking());
    process.emit('SIGHUP', 'SIGHUP');
    process.emit('SIGHUP', 'SIGHUP');
    expect(controller.signals.stop.aborted).toBe(false);
    expect(log.lines).toEqual([
      'info: hangup ignored: no output goes to a terminal (SIGINT or SIGTERM stops the run)',
    ]);
  });

  it('SIGTERM says so, and how to stop what is in flight without a keyboard', () => {
    const log = recordingLogger();
    dispose = listenForInterrupts(counting({ transfers: 4, jobs: 0 }), io(), log, WORDS, ticking());
    process.emit('SIGTERM', 'SIGTERM');
    expect(log.lines).toEqual([
      'warn: interrupted (SIGTERM): finishing the 4 uploads in flight, then exiting; SIGTERM or Ctrl-C again stops them now',
    ]);
    expect(interruptedLine(WORDS)).toBe(
      'interrupted: run the same command again to send the files not yet done',
    );
  });

  it.each<[string, InFlight, string[]]>([
    [
      'one upload',
      { transfers: 1, jobs: 0 },
      [
        'warn: interrupted: finishing the upload in flight, then exiting; press Ctrl-C again to stop it now',
        'warn: aborting the upload in flight; a third interrupt exits at once',
      ],
    ],
    [
      'nothing (the files still listed or checked)',
      { transfers: 0, jobs: 0 },
      [
        'warn: interrupted: no upload in flight; exiting',
        'warn: no upload in flight to abort; a third interrupt exits at once',
      ],
    ],
    [
      'only jobs waited for',
      { transfers: 0, jobs: 12 },
      [
        'warn: interrupted: stopping the waits for 12 jobs (they stay pending for the next run); exiting',
        'warn: no upload in flight to abort; a third interrupt exits at once',
      ],
    ],
    [
      'uploads and a job waited for',
      { transfers: 3, jobs: 1 },
      [
        'warn: interrupted: stopping the wait for 1 job (it stays pending for the next run) and finishing the 3 uploads in flight, then exiting; press Ctrl-C again to stop them now',
        'warn: aborting the 3 uploads in flight; a third interrupt exits at once',
      ],
    ],
  ])('with %s in flight, each interrupt says what it does to it', (_name, now, expected) => {
    const log = recordingLogger();
    dispose = listenForInterrupts(counting(now), io(), log, WORDS, ticking());
    process.emit('SIGINT', 'SIGINT');
    process.emit('SIGINT', 'SIGINT');
    expect(log.lines).toEqual(expected);
  });

  it('asks what is in flight at each interrupt, from the work that began after it listened', () => {
    const controller = createInterruptController();
    const log = recordingLogger();
    dispose = listenForInterrupts(controller, io(), log, WORDS, ticking());
    let uploads = 5;
    controller.signals.countInFlight?.(() => ({ transfers: uploads, jobs: 0 }));
    process.emit('SIGINT', 'SIGINT');
    uploads = 2;
    process.emit('SIGINT', 'SIGINT');
    expect(log.lines).toEqual([
      'warn: interrupted: finishing the 5 uploads in flight, then exiting; press Ctrl-C again to stop them now',
      'warn: aborting the 2 uploads in flight; a third interrupt exits at once',
    ]);
  });

  it('the same signal twice at once is one interrupt: `timeout` and npm send it to the process and to its group', () => {
    const controller = counting({ transfers: 2, jobs: 0 });
    const log = recordingLogger();
    let now = 1_000;
    dispose = listenForInterrupts(controller, io(), log, WORDS, () => now);
    process.emit('SIGTERM', 'SIGTERM');
    now += SAME_SIGNAL_MS - 1;
    process.emit('SIGTERM', 'SIGTERM');
    expect(controller.signals.stop.aborted).toBe(true);
    expect(controller.signals.abort.aborted).toBe(false);
    // Sent again later, it is a second interrupt, as it is meant to be.
    now += SAME_SIGNAL_MS;
    process.emit('SIGTERM', 'SIGTERM');
    expect(controller.signals.abort.aborted).toBe(true);
    expect(log.lines).toEqual([
      'warn: interrupted (SIGTERM): finishing the 2 uploads in flight, then exiting; SIGTERM or Ctrl-C again stops them now',
      'warn: aborting the 2 uploads in flight; a third interrupt exits at once',
    ]);
  });

  it('another signal at once is another interrupt', () => {
    const controller = counting({ transfers: 1, jobs: 0 });
    dispose = listenForInterrupts(controller, io(), recordingLogger(), WORDS, () => 0);
    process.emit('SIGTERM', 'SIGTERM');
    process.emit('SIGINT', 'SIGINT');
    expect(controller.signals.abort.aborted).toBe(true);
  });

  it('a dry run, which never has anything in flight, stops', () => {
    const log = recordingLogger();
    dispose = listenForInterrupts(
      counting({ transfers: 0, jobs: 0 }),
      io(),
      log,
      {
        transfer: undefined,
        rerun: 'check',
      },
      ticking(),
    );
    process.emit('SIGINT', 'SIGINT');
    process.emit('SIGINT', 'SIGINT');
    expect(log.lines).toEqual(['warn: interrupted: stopping', 'warn: stopping now']);
  });
});

describe('signals held while the modules loaded', () => {
  /** bin/vredact.cjs's holding listener, as it is at the start of every command but --version. */
  function holdSignals(...heard: NodeJS.Signals[]) {
    const hold = Object.assign((signal: NodeJS.Signals) => void hold.heldSignals.push(signal), {
      heldSignals: [...heard],
      released: false,
    });
    for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(signal, hold);
    return hold;
  }
  let dispose: (() => void) | undefined;
  afterEach(() => {
    dispose?.();
    dispose = undefined;
    for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
      for (const listener of process.rawListeners(signal)) {
        if ('heldSignals' in listener) process.off(signal, listener as unknown as () => void);
      }
    }
  });

  it('are one first interrupt, however many, handed over before anything starts; the holder is let go', () => {
    const hold = holdSignals('SIGTERM', 'SIGINT');
    const controller = createInterruptController();
    const log = recordingLogger();
    dispose = listenForInterrupts(controller, io(), log, WORDS, ticking());
    expect(controller.signals.stop.aborted).toBe(true);
    expect(controller.signals.abort.aborted).toBe(false);
    // Nothing was started: nothing is in flight to finish.
    expect(log.lines).toEqual(['warn: interrupted (SIGTERM): no upload in flight; exiting']);
    for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
      expect(process.listeners(signal)).not.toContain(hold);
    }
    dispose();
    dispose = undefined;
    // Not put back with the listeners set aside: it has done its part.
    expect(process.listeners('SIGINT')).not.toContain(hold);
  });

  it('a second interrupt after one held says what it aborts: nothing, as nothing was started', () => {
    holdSignals('SIGINT');
    const controller = createInterruptController();
    const log = recordingLogger();
    dispose = listenForInterrupts(controller, io(), log, WORDS, ticking());
    // The work begins after the held interrupt, and starts nothing (what its stop does).
    controller.signals.countInFlight?.(() => ({ transfers: 0, jobs: 0 }));
    process.emit('SIGINT', 'SIGINT');
    expect(controller.signals.abort.aborted).toBe(true);
    expect(log.lines).toEqual([
      'warn: interrupted: no upload in flight; exiting',
      'warn: no upload in flight to abort; a third interrupt exits at once',
    ]);
  });

  it('a hangup held with no output on a terminal is ignored, as any hangup then', () => {
    holdSignals('SIGHUP');
    const controller = createInterruptController();
    const log = recordingLogger();
    dispose = listenForInterrupts(controller, io(false), log, WORDS, ticking());
    expect(controller.signals.stop.aborted).toBe(false);
    expect(log.lines).toEqual([
      'info: hangup ignored: no output goes to a terminal (SIGINT or SIGTERM stops the run)',
    ]);
  });
});
