import { expect, test } from 'vitest';
import { parseRecord, stateOf } from '../../src/status/records.js';
import { journalLine } from '../helpers/journal.js';

test('a done line keeps its hashes and the voice fields sent', () => {
  const record = parseRecord(
    journalLine({
      at: '2026-11-21T02:00:01.000Z',
      event: 'done',
      input: '/in/a.wav',
      output: 'a.wav',
      jobId: 'j1',
      via: 'job',
      inputSha256: 'aa',
      outputSha256: 'bb',
      voice: { gender: 'f', age: 'senior-adult', bogus: 'x', emotion: 3 },
    }),
  );
  expect(record).toEqual({
    event: 'done',
    at: '2026-11-21T02:00:01.000Z',
    atMs: Date.parse('2026-11-21T02:00:01.000Z'),
    input: '/in/a.wav',
    output: 'a.wav',
    jobId: 'j1',
    inputSha256: 'aa',
    outputSha256: 'bb',
    voice: { age: 'senior-adult', gender: 'f' },
    file: 0,
  });
});

test('without details, the hashes and the voice are not kept', () => {
  const record = parseRecord(
    journalLine({
      at: 't',
      event: 'done',
      input: '/in/a.wav',
      inputSha256: 'aa',
      outputSha256: 'bb',
      voice: { age: 'same' },
    }),
    { file: 3, details: false },
  );
  expect(record).toMatchObject({ event: 'done', input: '/in/a.wav', file: 3 });
  expect(record).not.toHaveProperty('inputSha256');
  expect(record).not.toHaveProperty('outputSha256');
  expect(record).not.toHaveProperty('voice');
});

test('an older line without the new fields reads with them absent', () => {
  const record = parseRecord(
    journalLine({ at: '2026-11-21T02:00:01.000Z', event: 'failed', input: '/in/b.wav', reason: 'no' }),
  );
  expect(record).toMatchObject({ event: 'failed', input: '/in/b.wav', output: '', reason: 'no' });
  expect(record).not.toHaveProperty('inputSha256');
  expect(record).not.toHaveProperty('voice');
});

test('lines that are not records are refused', () => {
  expect(parseRecord('not json')).toBeUndefined();
  expect(parseRecord('[1,2]')).toBeUndefined();
  expect(parseRecord('null')).toBeUndefined();
  expect(parseRecord(journalLine({ event: 'done' }))).toBeUndefined();
  expect(parseRecord(journalLine({ event: 'exploded', input: '/in/a.wav' }))).toBeUndefined();
});

test('an unreadable time is kept as NaN, not a failure', () => {
  expect(parseRecord(journalLine({ event: 'done', input: '/a', at: 'yesterday' }))?.atMs).toBeNaN();
});

test('uploading and submitted are pending; the other events are their own state', () => {
  expect(stateOf('uploading')).toBe('pending');
  expect(stateOf('submitted')).toBe('pending');
  expect(stateOf('done')).toBe('done');
  expect(stateOf('failed')).toBe('failed');
  expect(stateOf('rejected')).toBe('rejected');
});
