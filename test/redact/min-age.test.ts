/** The --min-age rule: from the run's start, the same for every file; 0 is off; the future is left. */
import { describe, expect, it } from 'vitest';
import { MinAgeRule } from '../../src/redact/min-age.js';
import { parseRedactOptions } from '../../src/redact/options.js';

const STARTED = 1_700_000_000_000;

/** A rule for a run that started at STARTED; `nowMs`: the clock when files are judged. */
function rule(ms: number, label: string, nowMs = STARTED) {
  const warnings: string[] = [];
  const minAge = new MinAgeRule(
    { ms, label },
    STARTED,
    () => nowMs,
    (line) => warnings.push(line),
  );
  return { rule: minAge, warnings };
}

describe('MinAgeRule', () => {
  it('leaves a file younger than the minimum, with its age, and sends one exactly at it or older', () => {
    const { rule: minAge, warnings } = rule(300_000, '5m');
    expect(minAge.leftReason(STARTED - 12_000, 'in/a.wav')).toBe(
      'modified 12 s ago, under --min-age 5m: left for a later run',
    );
    expect(minAge.leftReason(STARTED - 299_999, 'in/a.wav')).toBe(
      'modified 4:59 ago, under --min-age 5m: left for a later run',
    );
    expect(minAge.leftReason(STARTED - 300_000, 'in/a.wav')).toBeUndefined();
    expect(minAge.leftReason(STARTED - 7_200_000, 'in/a.wav')).toBeUndefined();
    expect(minAge.leftReason(STARTED, 'in/a.wav')).toBe(
      'modified 0 s ago, under --min-age 5m: left for a later run',
    );
    expect(warnings).toEqual([]);
  });

  it('0 is off: even a file modified at the start, or in the future, goes on', () => {
    const { rule: minAge, warnings } = rule(0, '0');
    expect(minAge.leftReason(STARTED, 'in/a.wav')).toBeUndefined();
    expect(minAge.leftReason(STARTED + 3_600_000, 'in/a.wav')).toBeUndefined();
    expect(warnings).toEqual([]);
  });

  it('leaves a file modified in the future, and warns once per run', () => {
    const { rule: minAge, warnings } = rule(600_000, '10m');
    expect(minAge.leftReason(STARTED + 7_200_000, 'in/a.wav')).toBe(
      'modified 2:00:00 in the future, under --min-age 10m: left for a later run',
    );
    expect(minAge.leftReason(STARTED + 60_000, 'in/b.wav')).toBe(
      'modified 1:00 in the future, under --min-age 10m: left for a later run',
    );
    expect(warnings).toEqual([
      "in/a.wav: its modification time is 2:00:00 in the future; files like it are left by --min-age 10m until they are older (fix the clock, or the file's time with touch)",
    ]);
  });

  it('a time within a second ahead (a coarse file-system clock) is not the future', () => {
    const { rule: minAge, warnings } = rule(600_000, '10m');
    expect(minAge.leftReason(STARTED + 500, 'in/a.wav')).toBe(
      'modified after this run started, under --min-age 10m: left for a later run',
    );
    expect(warnings).toEqual([]);
  });

  it('a file modified while the run went on is left, counted from the start, and is not the future', () => {
    // An hour into the run, a file modified half an hour after its start.
    const { rule: minAge, warnings } = rule(600_000, '10m', STARTED + 3_600_000);
    expect(minAge.leftReason(STARTED + 1_800_000, 'in/a.wav')).toBe(
      'modified after this run started, under --min-age 10m: left for a later run',
    );
    expect(warnings).toEqual([]);
  });
});

describe('--min-age', () => {
  it('takes the duration syntax of --wait-timeout, 0 by default', () => {
    expect(parseRedactOptions({}).minAge).toEqual({ ms: 0, label: '0' });
    expect(parseRedactOptions({ minAge: '5m' }).minAge).toEqual({ ms: 300_000, label: '5m' });
    expect(parseRedactOptions({ minAge: '1h30m' }).minAge.ms).toBe(5_400_000);
    expect(parseRedactOptions({ minAge: '90' }).minAge.ms).toBe(90_000);
    expect(() => parseRedactOptions({ minAge: 'soon' })).toThrow(
      '--min-age must be a duration like 90s, 30m, 2h or plain seconds (got "soon")',
    );
  });
});
