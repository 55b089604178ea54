import { expect, test } from 'vitest';
import type { StatusRecord } from '../../src/status/records.js';
import { describe, manifestInputs, fileStatus, summarize } from '../../src/status/summary.js';
import { latestOf, statusRecord } from '../helpers/journal.js';

function record(fields: Record<string, unknown>): StatusRecord {
  return statusRecord({ at: '2026-11-21T02:00:00.000Z', ...fields });
}

const latest = [
  record({ event: 'done', input: '/in/z.wav', output: 'z.wav' }),
  record({ event: 'submitted', input: '/in/c.wav', jobId: 'j3', output: 'c.wav' }),
  record({ event: 'failed', input: '/in/b.wav', reason: 'the service answered 500' }),
  record({ event: 'uploading', input: '/in/d.wav', uploadName: 'd-1.wav' }),
  record({ event: 'rejected', input: '/in/a.wav', reason: 'not a WAV or MP3 file' }),
  record({ event: 'done', input: '/in/y.wav', output: 'sub/y.wav' }),
];

test('counts every input once by state', () => {
  expect(summarize(latestOf(latest), false).counts).toEqual({
    done: 2,
    uploading: 0,
    pending: 2,
    failed: 1,
    rejected: 1,
    total: 6,
  });
  expect(summarize(latestOf([]), false).counts).toEqual({
    done: 0,
    uploading: 0,
    pending: 0,
    failed: 0,
    rejected: 0,
    total: 0,
  });
});

test('lists failed, rejected and pending files, by state then path; the done ones only with all', () => {
  expect([...summarize(latestOf(latest), false).listed].map((r) => r.input)).toEqual([
    '/in/b.wav',
    '/in/a.wav',
    '/in/c.wav',
    '/in/d.wav',
  ]);
  expect([...summarize(latestOf(latest), true).listed].map((r) => r.input).slice(4)).toEqual([
    '/in/y.wav',
    '/in/z.wav',
  ]);
  expect(manifestInputs(latestOf(latest))).toEqual(['/in/y.wav', '/in/z.wav']);
});

test('a file status carries the absolute output and only the fields it has', () => {
  expect(fileStatus('/out', latest[1] as StatusRecord)).toEqual({
    input: '/in/c.wav',
    output: '/out/c.wav',
    state: 'pending',
    event: 'submitted',
    reason: 'submitted; the next run collects its job',
    jobId: 'j3',
    at: '2026-11-21T02:00:00.000Z',
  });
  expect(fileStatus('/out', latest[5] as StatusRecord).output).toBe('/out/sub/y.wav');
  expect(fileStatus('/out', latest[3] as StatusRecord).output).toBe('');
});

test('pending files say what the next run does with them', () => {
  expect(describe(latest[1] as StatusRecord)).toMatch(/collects its job/);
  expect(describe(latest[3] as StatusRecord)).toMatch(/looks for its job first/);
  expect(describe(latest[2] as StatusRecord)).toBe('the service answered 500');
});
