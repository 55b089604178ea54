/** Random journal records, for tests that hold one table of them against another. */
import { expect } from 'vitest';
import type { JournalRecord } from '../../src/redact/journal.js';
import { isRecord } from '../../src/redact/journal-line.js';
import type { JournalState } from '../../src/redact/journal-read.js';

const EVENTS = ['uploading', 'withdrawn', 'submitted', 'done', 'failed', 'rejected'] as const;

/** A small deterministic generator, so that a failure can be replayed. */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1103515245 + 12345) % 2 ** 31;
    return state / 2 ** 31;
  };
}

export function someRecords(count: number, seed: number): { record: JournalRecord; source: number }[] {
  const next = random(seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)] as T;
  const records = [];
  for (let i = 0; i < count; i++) {
    const ms = Date.UTC(2026, 0, 1) + Math.floor(next() * 100_000);
    // Mostly times as the writer gives them; some as another tool might (an offset, no ms, junk).
    const at = pick([
      new Date(ms).toISOString(),
      new Date(ms).toISOString(),
      new Date(ms).toISOString(),
      new Date(ms).toISOString().replace('.000Z', 'Z'),
      new Date(ms).toISOString().replace('Z', '+00:00'),
      'yesterday',
      // Texts Date.parse moves to another day, and real late days of a month: each given back as written.
      new Date(ms).toISOString().replace('2026-01-01', '2026-02-30'),
      new Date(ms).toISOString().replace(/T\d\d/, 'T24'),
      new Date(ms).toISOString().replace('2026-01-01', '2026-01-31'),
      new Date(ms).toISOString().replace('2026-01-01', '2024-02-29'),
    ]);
    const event = pick(EVENTS);
    const record: JournalRecord = {
      v: 1,
      event,
      at,
      input: `/in/${pick(['a', 'b', 'c', 'd', 'e', 'é f'])}.wav`,
      size: pick([100, 100, 101]),
      mtimeMs: pick([1234.5, 1234.5, 99]),
      options: pick(['fp-one', 'fp-two']),
      output: 'x.wav',
      outputSha256: 'f'.repeat(64),
    };
    // A few names, so that a withdrawn line often names the upload it takes back.
    if (event === 'uploading' || event === 'submitted' || event === 'withdrawn')
      record.uploadName = `u${Math.floor(next() * 3)}.wav`;
    if (next() < 0.3) record.jobId = pick(['j1', 'j2', 'j3']);
    if (next() < 0.3) record.reason = pick(['too long', 'the service answered 500']);
    if (next() < 0.05) (record as unknown as Record<string, unknown>).jobId = 42;
    if (event === 'submitted') {
      // What collecting needs, mostly as vredact writes it; some values the table cannot pack.
      const duration = pick([undefined, 1.5, 0.1 + 0.2, 3600, -0, '2']);
      if (duration !== undefined) (record as unknown as Record<string, unknown>).durationSec = duration;
      const sha = pick([undefined, '0123456789abcdef'.repeat(4), 'ABCDEF'.repeat(10), 'x']);
      if (sha !== undefined) record.inputSha256 = sha;
      if (next() < 0.05) record.jobId = '';
      if (next() < 0.05) record.jobId = 'j\u0000nul';
    }
    // As the reader applies them: an upload whose time is no time is not a record.
    if (isRecord(record)) records.push({ record, source: Math.floor(next() * 3) });
  }
  return records;
}

/** What a run's decisions read of a record. */
export const decisive = (record: JournalRecord | undefined) =>
  record && {
    event: record.event,
    at: record.at,
    input: record.input,
    size: record.size,
    mtimeMs: record.mtimeMs,
    options: record.options,
    jobId: record.jobId,
    // A run reads no reason of a submitted record; it reads what collecting its job needs.
    reason: record.event === 'submitted' ? undefined : record.reason,
    ...(record.event === 'submitted'
      ? { durationSec: record.durationSec, inputSha256: record.inputSha256 }
      : {}),
    // A table holds an upload's name on its streak, as a hash (see upload-streaks.ts).
    uploadName: record.event === 'uploading' ? undefined : record.uploadName,
  };

/** Expects `state` to give back, input by input, what `whole` (every record held whole) gives. */
export function expectSameDecisions(state: JournalState, whole: JournalState): void {
  expect([...state.latest.keys()]).toEqual([...whole.latest.keys()]);
  for (const [input, record] of whole.latest) {
    expect(decisive(state.latest.get(input))).toEqual(decisive(record));
    const [held, kept] = [state.interrupted.get(input), whole.interrupted.get(input)];
    expect(held && { ...held, before: decisive(held.before) }).toEqual(
      kept && { ...kept, before: decisive(kept.before) },
    );
  }
}
