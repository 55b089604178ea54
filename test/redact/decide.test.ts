/** The rule "is this record still this file?" and what a run does with a done file touched since. */
import { describe, expect, it } from 'vitest';
import { decide, recordMatch } from '../../src/redact/decide.js';
import type { JournalRecord } from '../../src/redact/journal.js';

const SHA = 'ab'.repeat(32);
const done: JournalRecord = {
  v: 1,
  at: '2026-01-02T03:04:05.000Z',
  event: 'done',
  input: '/in/a.wav',
  size: 100,
  mtimeMs: 1000,
  options: 'f1',
  output: 'a.wav',
  inputSha256: SHA,
};
const file = { size: 100, mtimeMs: 1000 };
const input = { record: done, ...file, voiceFingerprint: 'f1', outputExists: true, overwrite: false };

describe('recordMatch', () => {
  it('is the same file by size, time and options alone, whether or not the record has a hash', () => {
    expect(recordMatch(done, file, 'f1')).toBe('same');
    const { inputSha256: _sha, ...older } = done;
    expect(recordMatch(older, file, 'f1')).toBe('same');
  });

  it('asks for the bytes only of a done record with a hash whose time alone differs', () => {
    expect(recordMatch(done, { ...file, mtimeMs: 2000 }, 'f1')).toBe('if-same-bytes');
    expect(recordMatch(done, { ...file, size: 101, mtimeMs: 2000 }, 'f1')).toBe('other');
    expect(recordMatch(done, { ...file, mtimeMs: 2000 }, 'f2')).toBe('other');
    const { inputSha256: _sha, ...older } = done;
    expect(recordMatch(older, { ...file, mtimeMs: 2000 }, 'f1')).toBe('other');
    expect(recordMatch({ ...done, inputSha256: 'not a hash' }, { ...file, mtimeMs: 2000 }, 'f1')).toBe(
      'other',
    );
    for (const event of ['failed', 'rejected', 'submitted', 'uploading'] as const)
      expect(recordMatch({ ...done, event }, { ...file, mtimeMs: 2000 }, 'f1')).toBe('other');
  });
});

describe('decide: a done file whose time alone changed', () => {
  const touched = { ...input, mtimeMs: 2000 };

  it('is sent unless its bytes are those of its done record, which it carries for the check', () => {
    expect(decide(touched)).toEqual({ action: 'send', why: 'touched', doneIfSameBytes: done });
  });

  it('is skipped as before when its time did not change: nothing to hash', () => {
    expect(decide(input)).toEqual({ action: 'skip', why: 'done' });
  });

  it('is sent as changed when its output is gone, its size or options differ, or its record has no hash', () => {
    expect(decide({ ...touched, outputExists: false })).toEqual({ action: 'send', why: 'changed' });
    expect(decide({ ...touched, size: 99 })).toEqual({ action: 'send', why: 'changed' });
    expect(decide({ ...touched, voiceFingerprint: 'f2' })).toEqual({ action: 'send', why: 'changed' });
    const { inputSha256: _sha, ...older } = done;
    expect(decide({ ...touched, record: older })).toEqual({ action: 'send', why: 'changed' });
  });

  it('is sent with --overwrite, as every done file is', () => {
    expect(decide({ ...touched, overwrite: true })).toEqual({ action: 'send', why: 'overwrite' });
  });
});
