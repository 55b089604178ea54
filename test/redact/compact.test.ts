/** Compaction: one line per input, what recovery needs kept, and the same decisions afterwards. */
import { mkdir, open, readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  COMPACT_SLACK_LINES,
  compactJournal,
  copyKeptLines,
  needsCompaction,
} from '../../src/redact/compact.js';
import { Uint8Column } from '../../src/redact/chunked-columns.js';
import { journalPath, type JournalRecord, optionsFingerprint } from '../../src/redact/journal.js';
import { type JournalState, readJournal, readJournals } from '../../src/redact/journal-read.js';
import type { KnownInputs } from '../../src/redact/record-table.js';
import { tempDirPerTest } from '../helpers/cli.js';

const dir = tempDirPerTest('vredact-compact-');
const base = { v: 1, size: 100, mtimeMs: 1, options: optionsFingerprint({}) };
const at = (n: number) => new Date(Date.UTC(2026, 0, 1) + n * 1000).toISOString();

describe('journal compaction', () => {
  it('waits until the journal is well past one line per input', () => {
    expect(needsCompaction(2 * 10 + COMPACT_SLACK_LINES, 10)).toBe(false);
    expect(needsCompaction(2 * 10 + COMPACT_SLACK_LINES + 1, 10)).toBe(true);
  });

  it('rewrites it as one line per input, keeping an interrupted upload and the record before it', async () => {
    const path = journalPath(dir.path);
    await mkdir(join(dir.path, '.vredact'), { recursive: true });
    const lines: string[] = [];
    let n = 0;
    // 3 inputs, re-run 600 times: done again and again.
    for (let run = 0; run < 600; run++) {
      for (const input of ['/a.wav', '/b.wav'])
        lines.push(JSON.stringify({ ...base, at: at(n++), event: 'done', input }));
    }
    lines.push(JSON.stringify({ ...base, at: at(n++), event: 'done', input: '/c.wav', output: 'c.wav' }));
    lines.push(
      JSON.stringify({ ...base, at: at(n++), event: 'uploading', input: '/c.wav', uploadName: 'c.1.wav' }),
    );
    lines.push(
      JSON.stringify({ ...base, at: at(n++), event: 'uploading', input: '/c.wav', uploadName: 'c.2.wav' }),
    );
    await writeFile(path, `${lines.join('\n')}\n`);
    const before = await readJournal(path);

    expect(await compactJournal(path)).toEqual({ before: lines.length, after: 5 });
    expect((await stat(path)).mode & 0o777).toBe(0o600);
    const after = await readJournal(path);
    expect(after.lines).toBe(5);
    expect([...after.latest.entries()]).toEqual([...before.latest.entries()]);
    expect(after.interrupted.get('/c.wav')).toEqual(before.interrupted.get('/c.wav'));
    expect(after.interrupted.get('/c.wav')?.uploads).toBe(2);
    // Both uploads' lines are kept: the look-up finds their names there.
    const text = await readFile(path, 'utf8');
    expect(['c.1.wav', 'c.2.wav'].filter((name) => text.includes(`"uploadName":"${name}"`))).toHaveLength(2);
    // Nothing more to do the next time.
    expect(await compactJournal(path)).toBeUndefined();
    expect((await readFile(path, 'utf8')).split('\n').filter(Boolean)).toHaveLength(5);
  });

  it('keeps the latest done line of an input whose last line is not done: its output still stands', async () => {
    const path = journalPath(dir.path);
    await mkdir(join(dir.path, '.vredact'), { recursive: true });
    const lines: string[] = [];
    let n = 0;
    for (let run = 0; run < 600; run++) {
      for (const input of ['/a.wav', '/b.wav'])
        lines.push(JSON.stringify({ ...base, at: at(n++), event: 'done', input, outputSha256: `${run}` }));
    }
    const failed = { ...base, at: at(n++), event: 'failed', input: '/a.wav', reason: 'redo refused' };
    const rejected = {
      ...base,
      at: at(n++),
      event: 'rejected',
      input: '/b.wav',
      reason: 'not a WAV or MP3 file',
    };
    lines.push(JSON.stringify(failed), JSON.stringify(rejected));
    await writeFile(path, `${lines.join('\n')}\n`);

    expect(await compactJournal(path)).toEqual({ before: lines.length, after: 4 });
    const kept = (await readFile(path, 'utf8')).split('\n').filter(Boolean);
    expect(kept).toEqual([lines[1198], lines[1199], JSON.stringify(failed), JSON.stringify(rejected)]);
    expect(kept[0]).toContain('"outputSha256":"599"');
    // The run reads the same last records as before.
    expect((await readJournal(path)).latest.get('/a.wav')?.event).toBe('failed');
  });

  it('leaves the journal as it was when its lock is found lost before the copy is put in place', async () => {
    const path = journalPath(dir.path);
    await mkdir(join(dir.path, '.vredact'), { recursive: true });
    const lines = Array.from({ length: 1100 }, (_, n) =>
      JSON.stringify({ ...base, at: at(n), event: 'done', input: '/a.wav' }),
    );
    await writeFile(path, `${lines.join('\n')}\n`);
    const lost = new Error('the lock was taken over');
    await expect(compactJournal(path, { beforeRename: () => Promise.reject(lost) })).rejects.toBe(lost);
    expect((await readFile(path, 'utf8')).split('\n').filter(Boolean)).toHaveLength(1100);
    expect(await readdir(join(dir.path, '.vredact'))).toEqual(['journal.jsonl']);
  });

  it('decides from the counts of a read already made, and reads the file again only to compact it', async () => {
    const path = journalPath(dir.path);
    await mkdir(join(dir.path, '.vredact'), { recursive: true });
    const lines: string[] = [];
    for (let n = 0; n < 1100; n++)
      lines.push(JSON.stringify({ ...base, at: at(n), event: 'done', input: '/a.wav' }));
    await writeFile(path, `${lines.join('\n')}\n`);
    const counted = (await readJournals(dir.path)).files[0];
    expect(counted).toMatchObject({ path, lines: 1100, inputs: 1 });
    // Counts that need no compaction: the file is left as it is, unread.
    expect(await compactJournal(path, { counted: { lines: 10, inputs: 10 } })).toBeUndefined();
    expect((await readFile(path, 'utf8')).split('\n').filter(Boolean)).toHaveLength(1100);
    expect(await compactJournal(path, { counted })).toEqual({ before: 1100, after: 1 });
    expect((await readFile(path, 'utf8')).split('\n').filter(Boolean)).toHaveLength(1);
  });

  it('keeps, byte for byte, exactly the lines that give the same state, with or without known inputs', async () => {
    const inputs = ['/a.wav', '/b.wav', '/c é.wav', '/d.wav', '/e.wav'];
    const events = ['uploading', 'withdrawn', 'submitted', 'done', 'failed', 'rejected'] as const;
    const known: KnownInputs = {
      length: 3,
      rowOf: (input) => inputs.slice(0, 3).indexOf(input),
      inputAt: (row) => inputs[row] as string,
      seenSizeAt: () => 100,
      seenMtimeMsAt: () => 1,
    };
    // An upload is compared as a run holds it: an upload given back (the one after it withdrawn) has
    // only that of its line (see journal-read.ts).
    const held = (record: JournalRecord) =>
      record.event === 'uploading'
        ? {
            event: record.event,
            at: record.at,
            size: record.size,
            mtimeMs: record.mtimeMs,
            options: record.options,
          }
        : record;
    const view = (state: JournalState) => ({
      latest: Object.fromEntries(
        [...state.latest.entries()].map(([input, record]) => [input, held(record)]).sort(),
      ),
      interrupted: Object.fromEntries(
        [...state.latest.keys()].sort().map((input) => [input, state.interrupted.get(input)]),
      ),
    });
    for (const [seed, withKnown] of [
      [1, false],
      [2, true],
      [3, true],
    ] as const) {
      let state = seed;
      const next = () => (state = (state * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
      const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)] as T;
      const lines: string[] = [];
      for (let n = 0; n < 1300; n++) {
        const event = pick(events);
        const record: Record<string, unknown> = { ...base, at: at(n), event, input: pick(inputs) };
        if (event === 'uploading' || event === 'withdrawn') record.uploadName = `u${Math.floor(next() * 3)}`;
        if (next() < 0.3) record.jobId = `j${n}`;
        // Fields a later version might add, and another order: kept as written.
        if (next() < 0.2) record.extra = { n };
        lines.push(next() < 0.02 ? '{"damaged' : JSON.stringify(next() < 0.5 ? record : { ...record, v: 1 }));
      }
      lines.splice(700, 0, `{"input":"${'x'.repeat(1024 * 1024)}"}`);
      const path = join(dir.path, `journal-${seed}.jsonl`);
      await writeFile(path, `${lines.join('\n')}\n`);
      const before = await readJournal(path);

      const result = await compactJournal(path, { known: withKnown ? known : undefined });
      const kept = (await readFile(path, 'utf8')).split('\n').filter(Boolean);
      expect(result).toEqual({ before: lines.length, after: kept.length });
      expect(kept.length).toBeLessThanOrEqual(inputs.length * 21);
      // Each kept line is one of the journal's, in the journal's order.
      let from = 0;
      for (const line of kept) {
        from = lines.indexOf(line, from) + 1;
        expect(from).toBeGreaterThan(0);
      }
      expect(view(await readJournal(path))).toEqual(view(before));
    }
  });

  it('copies the marked lines, and refuses a file that is not the one the first pass read', async () => {
    const path = join(dir.path, 'journal.jsonl');
    await writeFile(path, 'zero\none\n\ntwo\nthree');
    const keep = new Uint8Column();
    keep.set(1, 1);
    keep.set(3, 1);
    const out = join(dir.path, 'out.jsonl');
    const handle = await open(out, 'w');
    try {
      await copyKeptLines(path, handle, { lines: 4, keep });
      await expect(copyKeptLines(path, handle, { lines: 5, keep })).rejects.toThrow(
        /changed while it was compacted \(5 lines, then 4\)/,
      );
    } finally {
      await handle.close();
    }
    // Blank lines are not lines; the last line needs no newline to count. The second copy wrote too,
    // which is why a compaction writes to a temporary file that it removes on failure.
    expect(await readFile(out, 'utf8')).toBe('one\nthree\none\nthree\n');
  });
});
