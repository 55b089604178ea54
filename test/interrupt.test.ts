import { PassThrough, Readable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { createInterruptController, type InterruptWords, listenForInterrupts } from '../src/interrupt.js';
import { createIOStreams } from '../src/output/iostreams.js';
import { recordingLogger } from './helpers/logger.js';

const WORDS: InterruptWords = {
  stopping: 'finishing the uploads in flight and recording pending jobs',
  again: ' (Ctrl-C again to abort them)',
  outputClosed: 'starting nothing new, finishing the uploads in flight',
};

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
    const controller = createInterruptController();
    const log = recordingLogger();
    dispose = listenForInterrupts(controller, io(), log, WORDS);
    expect(process.listeners('SIGINT')).not.toContain(other);
    process.emit('SIGINT', 'SIGINT');
    expect(controller.signals.stop.aborted).toBe(true);
    expect(log.lines[0]).toMatch(/^warn: interrupted: finishing the uploads in flight/);
    process.emit('SIGINT', 'SIGINT');
    expect(controller.signals.abort.aborted).toBe(true);
    dispose();
    dispose = undefined;
    expect(process.listeners('SIGINT')).toContain(other);
    process.off('SIGINT', other);
  });

  it('a closed stdout (EPIPE) is a first interrupt, said in one line', () => {
    const streams = io();
    const controller = createInterruptController();
    const log = recordingLogger();
    dispose = listenForInterrupts(controller, streams, log, WORDS);
    streams.stdout.emit('error', Object.assign(new Error('write EPIPE'), { code: 'EPIPE' }));
    expect(controller.signals.stop.aborted).toBe(true);
    expect(controller.signals.abort.aborted).toBe(false);
    expect(log.lines).toEqual([
      'info: the output was closed: starting nothing new, finishing the uploads in flight',
    ]);
  });

  it('a hangup on a terminal is a first interrupt, said once, and never escalates to an abort', () => {
    const other = () => {};
    process.on('SIGHUP', other);
    const controller = createInterruptController();
    const log = recordingLogger();
    dispose = listenForInterrupts(controller, io(true), log, WORDS);
    expect(process.listeners('SIGHUP')).not.toContain(other);
    process.emit('SIGHUP', 'SIGHUP');
    process.emit('SIGHUP', 'SIGHUP');
    expect(controller.signals.stop.aborted).toBe(true);
    expect(controller.signals.abort.aborted).toBe(false);
    expect(log.lines).toEqual(['warn: hangup: finishing the uploads in flight and recording pending jobs']);
    dispose();
    dispose = undefined;
    expect(process.listeners('SIGHUP')).toContain(other);
    process.off('SIGHUP', other);
  });

  it('a hangup with no output on a terminal (nohup) is ignored, said once', () => {
    const controller = createInterruptController();
    const log = recordingLogger();
    dispose = listenForInterrupts(controller, io(false), log, WORDS);
    process.emit('SIGHUP', 'SIGHUP');
    process.emit('SIGHUP', 'SIGHUP');
    expect(controller.signals.stop.aborted).toBe(false);
    expect(log.lines).toEqual([
      'info: hangup ignored: no output goes to a terminal (SIGINT or SIGTERM stops the run)',
    ]);
  });
});
