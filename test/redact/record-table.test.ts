/** The table of last records a run holds: it must give back what holding every record whole gives. */
import { describe, expect, it } from 'vitest';
import { applyRecord, emptyJournalState } from '../../src/redact/journal-read.js';
import { WholeRecords } from '../../src/redact/record-store.js';
import { type KnownInputs, RecordTable, SettledRecord } from '../../src/redact/record-table.js';
import { decisive, expectSameDecisions, someRecords } from '../helpers/journal-records.js';

describe('the table of last records', () => {
  it('gives back, input by input, what holding every record whole gives', () => {
    for (const seed of [1, 2, 3, 4, 5]) {
      const table = emptyJournalState();
      const whole = emptyJournalState(new WholeRecords());
      for (const { record, source } of someRecords(400, seed)) {
        applyRecord(table, { ...record }, source);
        applyRecord(whole, { ...record }, source);
      }
      expect(table.latest).toBeInstanceOf(RecordTable);
      expectSameDecisions(table, whole);
    }
  });

  it('answers for the input its iteration just gave, and for any other asked in between', () => {
    const table = emptyJournalState();
    const whole = emptyJournalState(new WholeRecords());
    for (const { record, source } of someRecords(400, 7)) {
      applyRecord(table, { ...record }, source);
      applyRecord(whole, { ...record }, source);
    }
    const inputs = [...whole.latest.keys()];
    const latest = table.latest as RecordTable;
    let other = 0;
    for (const input of latest.keys()) {
      expect(latest.eventOf(input)).toBe(whole.latest.get(input)?.event);
      // A look-up of another input between two steps must not leave the iteration's row behind.
      const elsewhere = inputs[(other += 37) % inputs.length] as string;
      expect(decisive(latest.get(elsewhere))).toEqual(decisive(whole.latest.get(elsewhere)));
      expect(decisive(latest.get(input))).toEqual(decisive(whole.latest.get(input)));
      expect(latest.has(`${input}.not-there`)).toBe(false);
    }
  });

  it('holds more inputs than its first columns, each row its own', () => {
    const table = new RecordTable();
    for (let i = 0; i < 5000; i++) {
      table.put(
        {
          v: 1,
          event: i % 7 === 0 ? 'failed' : 'done',
          at: new Date(Date.UTC(2026, 0, 1) + i).toISOString(),
          input: `/in/${i}.wav`,
          size: i,
          mtimeMs: i + 0.25,
          options: `fp${i % 3}`,
          ...(i % 7 === 0 ? { reason: `r${i}` } : {}),
          ...(i % 11 === 0 ? { jobId: `j${i}` } : {}),
        },
        0,
      );
    }
    expect(table.size).toBe(5000);
    const record = table.get('/in/4840.wav');
    expect(record).toBeInstanceOf(SettledRecord);
    expect(record).toMatchObject({
      event: 'done',
      at: new Date(Date.UTC(2026, 0, 1) + 4840).toISOString(),
      size: 4840,
      mtimeMs: 4840.25,
      options: 'fp1',
      jobId: 'j4840',
      reason: undefined,
    });
    expect(table.get('/in/4840.wav')?.options).toBe(table.get('/in/1.wav')?.options);
    expect(table.get('/in/4998.wav')).toMatchObject({ event: 'failed', reason: 'r4998', jobId: undefined });
    expect([...table.values()].filter((one) => one.event === 'failed')).toHaveLength(715);
    expect(table.has('/in/5000.wav')).toBe(false);

    // An input forgotten (its only line withdrawn) is gone from every view, and may come back.
    expect(table.delete('/in/4840.wav')).toBe(true);
    expect(table.delete('/in/4840.wav')).toBe(false);
    expect([table.size, table.has('/in/4840.wav'), table.get('/in/4840.wav')]).toEqual([
      4999,
      false,
      undefined,
    ]);
    expect([...table.keys()]).not.toContain('/in/4840.wav');
    expect([...table.values()]).toHaveLength(4999);
    table.put(
      {
        v: 1,
        event: 'failed',
        at: '2026-02-01T00:00:00.000Z',
        input: '/in/4840.wav',
        size: 1,
        mtimeMs: 2,
        options: 'fp0',
        reason: 'again',
      },
      0,
    );
    expect(table.size).toBe(5000);
    expect(table.get('/in/4840.wav')).toMatchObject({ event: 'failed', reason: 'again', jobId: undefined });
  });

  it('between journal files, lets the later time win, read as written when it is not the usual form', () => {
    const table = new RecordTable();
    const record = (at: string, event: 'done' | 'failed') =>
      ({ v: 1, event, at, input: '/a.wav', size: 1, mtimeMs: 1, options: 'fp' }) as const;
    table.put(record('2026-01-01T00:00:02.000Z', 'done'), 0);
    expect(table.loses(record('2026-01-01T00:00:01.000Z', 'failed'), 1)).toBe(true);
    expect(table.loses(record('2026-01-01T00:00:01.000Z', 'failed'), 0)).toBe(false);
    expect(table.loses(record('2026-01-01T00:00:03.000Z', 'failed'), 1)).toBe(false);
    table.put(record('2026-01-01T00:00:05Z', 'failed'), 1);
    expect(table.get('/a.wav')?.at).toBe('2026-01-01T00:00:05Z');
    // Compared as text, as the records are: '2026-01-01T00:00:05.000Z' sorts before '...05Z'.
    expect(table.loses(record('2026-01-01T00:00:05.000Z', 'done'), 0)).toBe(true);
  });

  it('built on known inputs, gives back the same by path and by row, also once their index is gone', () => {
    // Some inputs the records name are known, some not; two seen sizes and times are those of most records.
    const paths = ['/in/c.wav', '/in/é f.wav', '/in/a.wav', '/in/unnamed.wav'];
    const seen = [
      [100, 1234.5],
      [101, 99],
      [-1, -1],
      [100, 1234.5],
    ] as const;
    for (const seed of [11, 12, 13, 14, 15]) {
      let indexed = true;
      const known: KnownInputs = {
        length: paths.length,
        rowOf: (input) => {
          if (!indexed) throw new Error('asked by path');
          return paths.indexOf(input);
        },
        inputAt: (row) => paths[row] as string,
        seenSizeAt: (row) => seen[row]?.[0] as number,
        seenMtimeMsAt: (row) => seen[row]?.[1] as number,
      };
      const table = emptyJournalState(new RecordTable(known));
      const whole = emptyJournalState(new WholeRecords());
      for (const { record, source } of someRecords(400, seed)) {
        applyRecord(table, { ...record }, source);
        applyRecord(whole, { ...record }, source);
      }
      expect([...table.latest.keys()].sort()).toEqual([...whole.latest.keys()].sort());
      expect(table.latest.size).toBe(whole.latest.size);
      for (const [input, record] of whole.latest) {
        expect(decisive(table.latest.get(input))).toEqual(decisive(record));
      }
      for (const [input, record] of table.latest)
        expect(decisive(record)).toEqual(decisive(whole.latest.get(input)));
      indexed = false;
      paths.forEach((input, row) => {
        expect(decisive(table.latest.getFor(input, row))).toEqual(decisive(whole.latest.get(input)));
      });
      // A run's table keeps no job id, nor the reason of a done or failed record, and the rest the same.
      indexed = true;
      const run = emptyJournalState(new RecordTable(known, { notes: false }));
      for (const { record, source } of someRecords(400, seed)) applyRecord(run, { ...record }, source);
      for (const [input, record] of whole.latest) {
        const settled = ['done', 'failed', 'rejected', 'uploading'].includes(record.event);
        const plain = settled && typeof record.jobId !== 'number';
        // A rejected record's reason is kept: the run compares it before journaling a rejection.
        const reason = record.event === 'rejected' ? record.reason : undefined;
        const notes = plain ? { jobId: undefined, reason } : {};
        expect(decisive(run.latest.get(input))).toEqual({ ...decisive(record), ...notes });
      }
    }
  });

  it('tells journal files apart past 65,535 of them', () => {
    const table = new RecordTable();
    const record = (at: string) =>
      ({ v: 1, event: 'done', at, input: '/a.wav', size: 1, mtimeMs: 1, options: 'fp' }) as const;
    table.put(record('2026-01-01T00:00:02.000Z'), 70_000);
    // A file whose number is the same in 16 bits is another file: the later time wins, not the later line.
    expect(table.loses(record('2026-01-01T00:00:01.000Z'), 70_000 - 65_536)).toBe(true);
    expect(table.loses(record('2026-01-01T00:00:01.000Z'), 70_000)).toBe(false);
    expect(table.firstNamedIn('/a.wav', 70_000)).toBe(true);
    expect(table.firstNamedIn('/a.wav', 70_000 - 65_536)).toBe(true);
  });
});
