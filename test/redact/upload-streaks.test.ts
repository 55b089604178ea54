/** Interrupted uploads held as streaks of typed nodes: what a run knows of each, and the look-up's lines. */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { journalPath, type JournalRecord, optionsFingerprint } from '../../src/redact/journal.js';
import { applyRecord, emptyJournalState, readJournals } from '../../src/redact/journal-read.js';
import { uploadsNamed } from '../../src/redact/journal-search.js';
import { WholeRecords } from '../../src/redact/record-store.js';
import { tempDirPerTest } from '../helpers/cli.js';

const dir = tempDirPerTest('vredact-upload-streaks-');
const base = { v: 1 as const, size: 100, mtimeMs: 1234.5, options: optionsFingerprint({}) };
const at = (n: number) => new Date(Date.UTC(2026, 10, 1) + n * 1000).toISOString();
const record = (fields: Partial<JournalRecord> & Pick<JournalRecord, 'event' | 'input'>, n: number) =>
  ({ ...base, at: at(n), ...fields }) as JournalRecord;

describe('upload streaks', () => {
  it('counts every upload of a long streak, from the first one’s start, with the record before it', () => {
    const state = emptyJournalState();
    applyRecord(state, record({ event: 'failed', input: '/a.wav', reason: 'boom' }, 0));
    for (let n = 1; n <= 30; n++) {
      const upload = { event: 'uploading', input: '/a.wav', uploadName: `a.${n}.wav` } as const;
      // Every other upload began with no output at its place (its line says so).
      applyRecord(state, record(n % 2 === 0 ? { ...upload, outputAbsent: true } : upload, n));
    }
    expect(state.interrupted.get('/a.wav')).toEqual({
      sinceMs: Date.parse(at(1)),
      uploads: 30,
      before: expect.objectContaining({ event: 'failed', at: at(0) }),
      lastStartedMs: Date.parse(at(30)),
      lastSawNoOutput: true,
    });
    // Withdrawn, the last upload gives the one before it back, with its own start and its own line's word.
    applyRecord(state, record({ event: 'withdrawn', input: '/a.wav', uploadName: 'a.30.wav' }, 31));
    expect(state.latest.get('/a.wav')).toMatchObject({ event: 'uploading', at: at(29) });
    expect(state.interrupted.get('/a.wav')).toMatchObject({
      uploads: 29,
      lastStartedMs: Date.parse(at(29)),
      lastSawNoOutput: false,
    });
    // Done: the streak and the record before it are let go.
    applyRecord(state, record({ event: 'done', input: '/a.wav' }, 32));
    expect(state.interrupted.size).toBe(0);
    expect(state.interrupted.get('/a.wav')).toBeUndefined();
  });

  it('uses the nodes of ended streaks again, and keeps each input’s own', () => {
    // Many inputs, each cut short and settled in turn: the table and a model of whole records agree.
    const table = emptyJournalState();
    const whole = emptyJournalState(new WholeRecords());
    let n = 0;
    for (let round = 0; round < 50; round++) {
      for (let i = 0; i < 40; i++) {
        const input = `/in/${i}.wav`;
        const uploads = (round + i) % 4;
        const lines = [
          ...Array.from({ length: uploads }, (_, k) =>
            record({ event: 'uploading', input, uploadName: `${i}.${round}.${k}.wav` }, n++),
          ),
          ...((round * i) % 3 === 0 ? [record({ event: 'done', input }, n++)] : []),
        ];
        for (const line of lines) {
          applyRecord(table, { ...line });
          applyRecord(whole, { ...line });
        }
      }
    }
    for (let i = 0; i < 40; i++) {
      const input = `/in/${i}.wav`;
      const [held, kept] = [table.interrupted.get(input), whole.interrupted.get(input)];
      expect(held && { ...held, before: held.before?.event }).toEqual(
        kept && { ...kept, before: kept.before?.event },
      );
    }
    expect(table.interrupted.size).toBe(whole.interrupted.size);
    expect(table.interrupted.size).toBeGreaterThan(0);
  });

  it('finds in the journals only the uploading lines of the names asked about, each once', async () => {
    await mkdir(join(dir.path, '.vredact'), { recursive: true });
    const lines = [
      record({ event: 'uploading', input: '/a.wav', uploadName: 'a.1.wav', durationSec: 7 }, 1),
      record({ event: 'uploading', input: '/a.wav', uploadName: 'a.2.wav', inputSha256: 'ab' }, 2),
      // The same name again (a line copied by hand): the first is the one.
      record({ event: 'uploading', input: '/elsewhere.wav', uploadName: 'a.1.wav' }, 3),
      // Not an upload, though it names one; and a duration that is not a number.
      record({ event: 'submitted', input: '/b.wav', uploadName: 'b.1.wav', jobId: 'j' }, 4),
      { ...record({ event: 'uploading', input: '/c.wav', uploadName: 'c.1.wav' }, 5), durationSec: 'x' },
      record({ event: 'uploading', input: '/d.wav', uploadName: 'd.1.wav' }, 6),
    ];
    await writeFile(journalPath(dir.path), lines.map((line) => `${JSON.stringify(line)}\n`).join(''));
    const paths = (await readJournals(dir.path)).files.map((file) => file.path);
    const found = await uploadsNamed(paths, new Set(['a.1.wav', 'a.2.wav', 'b.1.wav', 'c.1.wav']));
    expect([...found.keys()].sort()).toEqual(['/a.wav', '/c.wav']);
    expect(found.get('/a.wav')).toEqual([
      expect.objectContaining({ uploadName: 'a.1.wav', durationSec: 7, inputSha256: undefined }),
      expect.objectContaining({ uploadName: 'a.2.wav', inputSha256: 'ab' }),
    ]);
    expect(found.get('/c.wav')).toEqual([expect.objectContaining({ durationSec: undefined })]);
    expect(await uploadsNamed(paths, new Set())).toEqual(new Map());
  });
});
