import { expect, test } from 'vitest';
import {
  apart,
  exactSeconds,
  formatDuration,
  formatLength,
  formatTimestamp,
} from '../../src/output/format.js';
import { timestampMs } from '../../src/api/timestamps.js';

test.each([
  [0, '0:00'],
  [9.4, '0:09'],
  [59.5, '1:00'],
  [754, '12:34'],
  [3600, '1:00:00'],
  [3725, '1:02:05'],
  [null, ''],
  [undefined, ''],
  [-1, ''],
  [Number.NaN, ''],
  [Number.POSITIVE_INFINITY, ''],
])('formatDuration(%j) is %j', (seconds, text) => {
  expect(formatDuration(seconds)).toBe(text);
});

test('formatTimestamp shortens an ISO date to UTC seconds, and keeps what it cannot read', () => {
  expect(formatTimestamp('2026-11-21T05:14:03.123Z')).toBe('2026-11-21 05:14:03');
  expect(formatTimestamp('2026-11-21T06:14:03+01:00')).toBe('2026-11-21 05:14:03');
  expect(formatTimestamp('yesterday')).toBe('yesterday');
});

test('formatTimestamp reads only a date-time: a number or a word is shown as it came, never as a made-up date', () => {
  // Date.parse read these as 2001-07-01, 2001-05-01 and 2000-01-01.
  for (const text of ['7', 'job 5', '0', '1764220000', '12/11/2026'])
    expect(formatTimestamp(text)).toBe(text);
  // No zone: shown as written, not moved by the machine's time zone.
  expect(formatTimestamp('2026-11-21T05:14:03.5')).toBe('2026-11-21 05:14:03');
  expect(formatTimestamp('2026-11-21 05:14:03+0100')).toBe('2026-11-21 04:14:03');
  expect(timestampMs('job 5')).toBeUndefined();
  expect(timestampMs('2026-11-21T05:14:03')).toBe(Date.UTC(2026, 10, 21, 5, 14, 3));
});

test('apart: figures that differ but would read alike are all shown exactly; others as they are', () => {
  expect(apart([3600.05, 3600], formatDuration, exactSeconds)).toEqual(['3600.05 s', '3600 s']);
  expect(apart([7.0004, 7, 7, 7], formatLength, exactSeconds)).toEqual(['7 s', '7 s', '7 s', '7 s']);
  expect(apart([7.004, 7, 7, 7], formatLength, exactSeconds)).toEqual(['7.004 s', '7 s', '7 s', '7 s']);
  expect(apart([3700, 3600], formatDuration, exactSeconds)).toEqual(['1:01:40', '1:00:00']);
});
