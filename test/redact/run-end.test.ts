import { describe, expect, it } from 'vitest';
import { ExitCode } from '../../src/errors.js';
import type { Outcome } from '../../src/redact/outcome.js';
import { runExitCode, RunTally } from '../../src/redact/run-end.js';

const outcome = (status: Outcome['status'], jobId?: string): Outcome =>
  ({ status, input: 'a.wav', ...(jobId ? { jobId } : {}) }) as Outcome;

describe('RunTally', () => {
  it('counts a submitted job left pending by --no-wait as expected, not as a problem', () => {
    const tally = new RunTally(false);
    expect(tally.count(outcome('pending', 'job-1'))).toBe(true);
    expect(tally.count(outcome('pending'))).toBe(false);
    expect(tally.count(outcome('done'))).toBe(false);
    expect(tally.counts).toMatchObject({ pending: 2, done: 1 });
    expect(tally.problems).toBe(1);
  });

  it('counts every pending file as a problem when the run waits for its jobs', () => {
    const tally = new RunTally(true);
    expect(tally.count(outcome('pending', 'job-1'))).toBe(false);
    tally.count(outcome('failed'));
    tally.count(outcome('rejected'));
    expect(tally.problems).toBe(3);
  });
});

describe('runExitCode', () => {
  const calm = { halted: false, interrupted: false, refused: false, problems: 0 };
  it('ranks a halt above an interrupt above a refused token above files left', () => {
    expect(runExitCode({ halted: true, interrupted: true, refused: true, problems: 1 })).toBe(
      ExitCode.partial,
    );
    expect(runExitCode({ ...calm, interrupted: true, refused: true, problems: 1 })).toBe(
      ExitCode.interrupted,
    );
    expect(runExitCode({ ...calm, refused: true, problems: 1 })).toBe(ExitCode.auth);
    expect(runExitCode({ ...calm, problems: 1 })).toBe(ExitCode.partial);
    expect(runExitCode(calm)).toBe(ExitCode.ok);
  });
});
