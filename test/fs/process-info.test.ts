import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { processAlive, processStartTimeMs, writerMayBeAlive } from '../../src/fs/process-info.js';

const hasProc = existsSync('/proc/self/stat');

describe('process-info', () => {
  it('tells live pids from dead ones', () => {
    expect(processAlive(process.pid)).toBe(true);
    expect(processAlive(2 ** 30)).toBe(false);
    expect(processAlive(0)).toBe(false);
    expect(processAlive(-1)).toBe(false);
  });

  it.skipIf(!hasProc)('reads when a process started, from /proc', () => {
    const started = processStartTimeMs(process.pid);
    expect(started).toBeDefined();
    expect(Math.abs((started ?? 0) - (Date.now() - process.uptime() * 1000))).toBeLessThan(5_000);
    expect(processStartTimeMs(2 ** 30)).toBeUndefined();
  });

  it('a writer may be alive only if its pid is alive and, where known, started before the writing', () => {
    expect(writerMayBeAlive(process.pid, Date.now())).toBe(true);
    expect(writerMayBeAlive(2 ** 30, Date.now())).toBe(false);
    expect(writerMayBeAlive(process.pid, Number.NaN)).toBe(true);
    // This process started after 2001: a file written then was not written by it.
    expect(writerMayBeAlive(process.pid, Date.parse('2001-01-01'))).toBe(!hasProc);
  });
});
