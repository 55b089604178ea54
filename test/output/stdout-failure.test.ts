import { EventEmitter } from 'node:events';
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import {
  isReaderGone,
  lostOutputLine,
  watchStdio,
  type WatchedProcess,
} from '../../src/output/stdout-failure.js';

const errno = (code: string, message: string) => Object.assign(new Error(message), { code });

/** A process of its own: streams whose errors are emitted by hand, and an exit that is called. */
function fakeProcess(exitCode?: number) {
  const events = new EventEmitter();
  const stderr = new PassThrough();
  let said = '';
  stderr.on('data', (chunk: Buffer) => (said += chunk.toString()));
  const proc = Object.assign(events, {
    stdout: new PassThrough(),
    stderr,
    exitCode,
  }) as unknown as WatchedProcess & EventEmitter;
  watchStdio(proc);
  return { proc, said: () => said, exit: () => proc.emit('exit', proc.exitCode) };
}

describe('watchStdio', () => {
  it('a full stdout: one line at the exit, and 0 becomes 1', () => {
    const { proc, said, exit } = fakeProcess(0);
    proc.stdout.emit('error', errno('ENOSPC', 'ENOSPC: no space left on device, write'));
    proc.stdout.emit('error', errno('EIO', 'EIO: i/o error, write'));
    exit();
    expect(said()).toBe(lostOutputLine(errno('ENOSPC', '')));
    expect(said()).toMatch(/^error: could not write to stdout: no space left on the device \(ENOSPC\); /);
    expect(proc.exitCode).toBe(1);
  });

  it("keeps a command's own exit code that is not 0 (interrupted, token refused)", () => {
    const { proc, exit } = fakeProcess(130);
    proc.stdout.emit('error', errno('EIO', 'EIO: i/o error, write'));
    exit();
    expect(proc.exitCode).toBe(130);
  });

  it('a reader gone (EPIPE) is no error: nothing said, the exit code kept', () => {
    const { proc, said, exit } = fakeProcess(undefined);
    proc.stdout.emit('error', errno('EPIPE', 'write EPIPE'));
    exit();
    expect(said()).toBe('');
    expect(proc.exitCode).toBeUndefined();
    expect(isReaderGone(errno('EPIPE', ''))).toBe(true);
    expect(isReaderGone(errno('ENOSPC', ''))).toBe(false);
  });

  it('an error on stderr is let be: nowhere is left to report it', () => {
    const { proc } = fakeProcess(0);
    expect(() => proc.stderr.emit('error', errno('ENOSPC', 'ENOSPC'))).not.toThrow();
  });

  it('an error it does not know by name keeps its code', () => {
    expect(lostOutputLine(errno('EWHAT', 'EWHAT: odd, write'))).toMatch(
      /^error: could not write to stdout: EWHAT; /,
    );
  });
});
