/** What collecting a submitted record's job needs, packed by row: given back exactly, or refused. */
import { describe, expect, it } from 'vitest';
import { JobDetailsColumn } from '../../src/redact/job-details.js';
import type { JournalRecord } from '../../src/redact/journal.js';

function submitted(fields: Partial<JournalRecord>): JournalRecord {
  return {
    v: 1,
    event: 'submitted',
    at: '2026-11-25T02:00:00.000Z',
    input: '/in/a.wav',
    size: 1,
    mtimeMs: 1,
    options: 'fp',
    ...fields,
  };
}

const SHA = '0123456789abcdef'.repeat(4);

describe('the job details of submitted records', () => {
  it('gives back what was held, field by field, absent fields absent', () => {
    const column = new JobDetailsColumn();
    expect(
      column.set(
        3,
        submitted({ jobId: 'job_é1', uploadName: 'a.k3j9.wav', durationSec: 0.1 + 0.2, inputSha256: SHA }),
      ),
    ).toBe(true);
    expect(column.set(70_000, submitted({ jobId: 'j2' }))).toBe(true);
    expect(column.get(3)).toEqual({
      jobId: 'job_é1',
      uploadName: 'a.k3j9.wav',
      durationSec: 0.1 + 0.2,
      inputSha256: SHA,
    });
    expect(column.get(70_000)).toEqual({
      jobId: 'j2',
      uploadName: undefined,
      durationSec: undefined,
      inputSha256: undefined,
    });
    expect(column.get(4)).toBeUndefined();
    column.clear(3);
    expect(column.get(3)).toBeUndefined();
  });

  it('refuses what it could not give back exactly, and then holds nothing for the row', () => {
    const column = new JobDetailsColumn();
    const odd: Partial<JournalRecord>[] = [
      {},
      { jobId: '' },
      { jobId: 'a\u0000b' },
      { jobId: 42 as unknown as string },
      { jobId: 'j', uploadName: '' },
      { jobId: 'j', durationSec: -0 },
      { jobId: 'j', durationSec: '2' as unknown as number },
      { jobId: 'j', inputSha256: SHA.toUpperCase() },
      { jobId: 'j', inputSha256: 'abc' },
    ];
    for (const fields of odd) {
      column.set(0, submitted({ jobId: 'held' }));
      expect(column.set(0, submitted(fields))).toBe(false);
      expect(column.get(0)).toBeUndefined();
    }
  });

  it('refuses a record that counts link misses: held whole, its count kept for status', () => {
    const column = new JobDetailsColumn();
    expect(column.set(1, submitted({ jobId: 'j1', uploadName: 'a.k3j9.wav', linkMisses: 2 }))).toBe(false);
    expect(column.get(1)).toBeUndefined();
  });
});
