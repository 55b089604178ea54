import { expect, test } from 'vitest';
import {
  apart,
  exactSeconds,
  formatDuration,
  formatLength,
  formatTimestamp,
} from '../../src/output/format.js';
import { epochMs, timestampMs } from '../../src/api/timestamps.js';

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
  // A length past any a number counts exactly is no length: it read 2.777777777777778e+304:58:56.
  [1e308, ''],
  [Number.MAX_SAFE_INTEGER, '2501999792983:36:31'],
])('formatDuration(%j) is %j', (seconds, text) => {
  expect(formatDuration(seconds)).toBe(text);
});

test('formatTimestamp shortens an ISO date to UTC seconds, and keeps what it cannot read', () => {
  expect(formatTimestamp('2026-11-21T05:14:03.123Z')).toBe('2026-11-21 05:14:03');
  expect(formatTimestamp('2026-11-21T06:14:03+01:00')).toBe('2026-11-21 05:14:03');
  expect(formatTimestamp('yesterday')).toBe('yesterday');
});

test("formatTimestamp marks a time it moved to UTC when asked (a person's table), never one without a zone", () => {
  expect(formatTimestamp('2026-11-21T06:14:03+01:00', true)).toBe('2026-11-21 05:14:03 UTC');
  expect(formatTimestamp('2026-11-21T05:14:03Z', true)).toBe('2026-11-21 05:14:03 UTC');
  // No zone: in no zone vredact knows, so not said to be UTC; not a time: as it came.
  expect(formatTimestamp('2026-11-21T05:14:03', true)).toBe('2026-11-21 05:14:03');
  expect(formatTimestamp('yesterday', true)).toBe('yesterday');
});

test('formatTimestamp reads only a date-time: a number or a word is shown as it came, never as a made-up date', () => {
  // Date.parse read these as 2001-07-01, 2001-05-01 and 2000-01-01.
  for (const text of ['7', 'job 5', '0', '12/11/2026', '-1764220000', '1e9', '946684799'])
    expect(formatTimestamp(text)).toBe(text);
  // No zone: shown as written, not moved by the machine's time zone.
  expect(formatTimestamp('2026-11-21T05:14:03.5')).toBe('2026-11-21 05:14:03');
  expect(formatTimestamp('2026-11-21 05:14:03+0100')).toBe('2026-11-21 04:14:03');
  expect(timestampMs('job 5')).toBeUndefined();
  expect(timestampMs('2026-11-21T05:14:03')).toBe(Date.UTC(2026, 10, 21, 5, 14, 3));
});

test('formatTimestamp reads an epoch number as seconds or milliseconds by its size, from 2000 on', () => {
  expect(formatTimestamp('1764220000')).toBe('2025-11-27 05:06:40');
  expect(formatTimestamp('1764220000.9', true)).toBe('2025-11-27 05:06:40 UTC');
  expect(formatTimestamp('1764220000123')).toBe('2025-11-27 05:06:40');
  expect(formatTimestamp('946684800')).toBe('2000-01-01 00:00:00');
  // Milliseconds before 2000 (a time from 1973 to 1999) and past a Date's last: as they came.
  for (const text of ['100000000000', '99999999999999999']) expect(formatTimestamp(text)).toBe(text);
  expect(epochMs('99999999999')).toBe(99_999_999_999_000);
  expect(timestampMs('1764220000')).toBeUndefined();
});

test('formatTimestamp reads no day a calendar lacks, nor hour 24: shown as it came, never as the day after', () => {
  // Date.parse rolled these over: 2026-03-02, 2026-05-01, 2026-03-01 and 2026-01-02 00:00:00.
  for (const text of [
    '2026-02-30T00:00:00Z',
    '2026-04-31T10:00:00Z',
    '2025-02-29T00:00:00Z',
    '2026-01-01T24:00:00Z',
  ]) {
    expect(formatTimestamp(text)).toBe(text);
    expect(timestampMs(text)).toBeUndefined();
  }
  expect(timestampMs('2028-02-29T00:00:00Z')).toBe(Date.UTC(2028, 1, 29));
  expect(timestampMs('0000-02-29T00:00:00Z')).toBe(Date.parse('0000-02-29T00:00:00Z'));
});

test('apart: figures that differ but would read alike are all shown exactly; others as they are', () => {
  expect(apart([3600.05, 3600], formatDuration, exactSeconds)).toEqual(['3600.05 s', '3600 s']);
  expect(apart([7.0004, 7, 7, 7], formatLength, exactSeconds)).toEqual(['7 s', '7 s', '7 s', '7 s']);
  expect(apart([7.004, 7, 7, 7], formatLength, exactSeconds)).toEqual(['7.004 s', '7 s', '7 s', '7 s']);
  expect(apart([3700, 3600], formatDuration, exactSeconds)).toEqual(['1:01:40', '1:00:00']);
});
