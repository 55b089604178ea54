import { expect, test } from 'vitest';
import { applyRecord, emptyJournalState } from '../../src/redact/journal-read.js';
import type { JournalRecord } from '../../src/redact/journal.js';
import { StatusTable, stateOf, statusRecordOf } from '../../src/status/records.js';
import { journalLine, statusRecord } from '../helpers/journal.js';

function journalRecord(fields: Record<string, unknown>): JournalRecord {
  return JSON.parse(
    journalLine({ at: '2026-11-21T02:00:01.000Z', input: '/in/a.wav', ...fields }),
  ) as JournalRecord;
}

test('a done line keeps its hashes and the voice fields sent', () => {
  const record = statusRecord({
    at: '2026-11-21T02:00:01.000Z',
    event: 'done',
    input: '/in/a.wav',
    output: 'a.wav',
    jobId: 'j1',
    via: 'job',
    inputSha256: 'aa',
    outputSha256: 'bb',
    voice: { gender: 'f', age: 'senior-adult', bogus: 'x', emotion: 3 },
  });
  expect(record).toEqual({
    event: 'done',
    at: '2026-11-21T02:00:01.000Z',
    input: '/in/a.wav',
    output: 'a.wav',
    jobId: 'j1',
    inputSha256: 'aa',
    outputSha256: 'bb',
    voice: { age: 'senior-adult', gender: 'f' },
  });
});

test('without details, the hashes and the voice are not kept', () => {
  const record = statusRecordOf(
    journalRecord({ event: 'done', inputSha256: 'aa', outputSha256: 'bb', voice: { age: 'same' } }),
    false,
  );
  expect(record).toMatchObject({ event: 'done', input: '/in/a.wav' });
  expect(record).not.toHaveProperty('inputSha256');
  expect(record).not.toHaveProperty('outputSha256');
  expect(record).not.toHaveProperty('voice');
});

test('an older line without the new fields reads with them absent; fields of odd types are left out', () => {
  const record = statusRecord({ event: 'failed', input: '/in/b.wav', reason: 'no', jobId: 7, output: {} });
  expect(record).toMatchObject({ event: 'failed', input: '/in/b.wav', output: '', reason: 'no' });
  expect(record).not.toHaveProperty('inputSha256');
  expect(record).not.toHaveProperty('voice');
  expect(record).not.toHaveProperty('jobId');
});

test('the store keeps what the rules compare and status shows, and drops the rest of a line', () => {
  const store = new StatusTable(false);
  store.put(
    journalRecord({
      event: 'done',
      output: 'a.wav',
      via: 'sync',
      bytes: 44,
      durationSec: 1,
      inputSha256: 'aa',
      outputSha256: 'bb',
      voice: { age: 'x' },
    }),
    0,
  );
  expect(store.get('/in/a.wav')).toEqual({
    v: 1,
    event: 'done',
    at: '2026-11-21T02:00:01.000Z',
    input: '/in/a.wav',
    size: 100,
    mtimeMs: 1,
    options: 'abcd',
    output: 'a.wav',
    // Kept without details too: an earlier output names the bytes it came from.
    inputSha256: 'aa',
  });
  const detailed = new StatusTable(true);
  detailed.put(
    journalRecord({ event: 'done', inputSha256: 'aa', outputSha256: 'bb', voice: { age: 'x' } }),
    0,
  );
  expect(detailed.get('/in/a.wav')).toMatchObject({
    inputSha256: 'aa',
    outputSha256: 'bb',
    voice: { age: 'x' },
  });
});

test('a withdrawn upload gives the input back its record before it, as a run reads it', () => {
  const state = emptyJournalState(new StatusTable(true));
  applyRecord(state, journalRecord({ event: 'done', output: 'a.wav', outputSha256: 'bb' }));
  applyRecord(
    state,
    journalRecord({ at: '2026-11-21T03:00:00.000Z', event: 'uploading', uploadName: 'a-1.wav' }),
  );
  applyRecord(
    state,
    journalRecord({ at: '2026-11-21T03:00:01.000Z', event: 'withdrawn', uploadName: 'a-1.wav' }),
  );
  const record = state.latest.get('/in/a.wav');
  expect(record && statusRecordOf(record, true)).toMatchObject({ event: 'done', outputSha256: 'bb' });
});

test('uploading and submitted are pending; the other events are their own state', () => {
  expect(stateOf('uploading')).toBe('pending');
  expect(stateOf('submitted')).toBe('pending');
  expect(stateOf('done')).toBe('done');
  expect(stateOf('failed')).toBe('failed');
  expect(stateOf('rejected')).toBe('rejected');
});
