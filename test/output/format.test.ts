import { expect, test } from 'vitest';
import {
  apart,
  exactSeconds,
  formatDuration,
  formatLength,
  formatTimestamp,
} from '../../src/output/format.js';

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

test('apart: figures that differ but would read alike are all shown exactly; others as they are', () => {
  expect(apart([3600.05, 3600], formatDuration, exactSeconds)).toEqual(['3600.05 s', '3600 s']);
  expect(apart([7.0004, 7, 7, 7], formatLength, exactSeconds)).toEqual(['7 s', '7 s', '7 s', '7 s']);
  expect(apart([7.004, 7, 7, 7], formatLength, exactSeconds)).toEqual(['7.004 s', '7 s', '7 s', '7 s']);
  expect(apart([3700, 3600], formatDuration, exactSeconds)).toEqual(['1:01:40', '1:00:00']);
});
