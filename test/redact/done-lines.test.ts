/**
 * A run's table holds nothing of a done record's hashes; for a done input whose size is the one its
 * discovery saw and whose time is not (a touched file), it holds where the line is and reads it again.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { decide } from '../../src/redact/decide.js';
import { emptyJournalState, readJournalFiles } from '../../src/redact/journal-read.js';
import { OpenJournals } from '../../src/redact/journal-lines-at.js';
import { type KnownInputs, RecordTable, SettledRecord } from '../../src/redact/record-table.js';
import { tempDirPerTest } from '../helpers/cli.js';

const dir = tempDirPerTest('vredact-done-lines-');
const SHA_IN = '1'.repeat(64);
const SHA_OUT = '2'.repeat(64);

function doneLine(input: string, mtimeMs: number, at: string) {
  return {
    v: 1,
    at,
    event: 'done',
    input,
    size: 100,
    mtimeMs,
    options: 'f1',
    output: input.slice(4),
    via: 'sync',
    bytes: 200,
    inputSha256: SHA_IN,
    outputSha256: SHA_OUT,
    voice: { gender: 'f' },
  };
}

describe('the done lines a run reads again', () => {
  it('are those of done inputs whose time alone changed; the others are settled records, hashes not held', async () => {
    const paths = ['/in/same.wav', '/in/touched.wav', '/in/resized.wav', '/in/unknown.wav'];
    // What discovery saw: same.wav as journaled, touched.wav at another time, resized.wav at another size.
    const seen = [
      [100, 1000],
      [100, 5000],
      [90, 5000],
      [-1, -1],
    ] as const;
    const known: KnownInputs = {
      length: paths.length,
      rowOf: (input) => paths.indexOf(input),
      inputAt: (row) => paths[row] as string,
      seenSizeAt: (row) => seen[row]?.[0] as number,
      seenMtimeMsAt: (row) => seen[row]?.[1] as number,
    };
    const journal = join(dir.path, 'journal.jsonl');
    const lines = paths.map((input, index) => doneLine(input, 1000, `2026-01-0${index + 1}T00:00:00.000Z`));
    await writeFile(journal, `${lines.map((line) => JSON.stringify(line)).join('\n')}\n`);
    const open = new OpenJournals();
    try {
      const table = new RecordTable(known, { notes: false, lines: open });
      const state = await readJournalFiles([journal], emptyJournalState(table), { open });
      const get = (row: number) => state.latest.getFor(paths[row] as string, row);

      expect(get(0)).toBeInstanceOf(SettledRecord);
      expect(get(0)?.inputSha256).toBeUndefined();
      expect(get(2)).toBeInstanceOf(SettledRecord);
      // Read again, every field: what a run journals again with the new time.
      const asLine = (row: number) => JSON.parse(JSON.stringify(get(row))) as unknown;
      expect(asLine(1)).toEqual(lines[1]);
      expect(asLine(3)).toEqual(lines[3]);

      const touched = decide({
        record: get(1),
        size: 100,
        mtimeMs: 5000,
        voiceFingerprint: 'f1',
        outputExists: true,
        overwrite: false,
      });
      expect(touched).toMatchObject({ action: 'send', why: 'touched' });
    } finally {
      await open.close();
    }
  });

  it('are not held by a table whose journals are not kept open (status, compaction)', async () => {
    const journal = join(dir.path, 'journal.jsonl');
    await writeFile(journal, `${JSON.stringify(doneLine('/in/a.wav', 1000, '2026-01-01T00:00:00.000Z'))}\n`);
    const table = new RecordTable(undefined, { notes: false });
    const state = await readJournalFiles([journal], emptyJournalState(table));
    expect(state.latest.get('/in/a.wav')).toBeInstanceOf(SettledRecord);
  });
});
