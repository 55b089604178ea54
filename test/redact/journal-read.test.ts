/** Reading every journal of a folder: shards' journals merged, damaged and oversized lines skipped. */
import { mkdir, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { LocalFsError } from '../../src/fs/errors.js';
import { journalPath, optionsFingerprint } from '../../src/redact/journal.js';
import { forEachLine, readJournals, SettledRecord } from '../../src/redact/journal-read.js';
import { jobIdsNamed } from '../../src/redact/journal-search.js';
import { JournalWriter } from '../../src/redact/journal-writer.js';
import { tempDirPerTest } from '../helpers/cli.js';

const dir = tempDirPerTest('vredact-journal-read-');
const base = { size: 100, mtimeMs: 1234.5, options: optionsFingerprint({}) };
const line = (fields: Record<string, unknown>) => `${JSON.stringify({ v: 1, ...base, ...fields })}\n`;

describe('reading the journals', () => {
  it('skips a line too long to hold, without holding it, and reads the lines around it', async () => {
    const path = journalPath(dir.path);
    await mkdir(join(dir.path, '.vredact'), { recursive: true });
    await writeFile(path, line({ at: '2026-01-01T00:00:00.000Z', event: 'done', input: '/a.wav' }));
    const huge = Buffer.alloc(8 * 1024 * 1024, 0x61); // stands for a 700 MB line: anything past the bound
    await writeFile(path, huge, { flag: 'a' });
    await writeFile(path, `\n${line({ at: '2026-01-01T00:00:01.000Z', event: 'failed', input: '/b.wav' })}`, {
      flag: 'a',
    });
    const state = await readJournals(dir.path);
    expect(state.oversized).toBe(1);
    expect(state.latest.get('/a.wav')?.event).toBe('done');
    expect(state.latest.get('/b.wav')?.event).toBe('failed');
    const sizes: number[] = [];
    await forEachLine(
      path,
      (bytes) => sizes.push(bytes.length),
      () => sizes.push(-1),
      1024,
    );
    expect(sizes.filter((size) => size < 0)).toHaveLength(1);
    expect(Math.max(...sizes)).toBeLessThan(1024);
  });

  it('reads back every line of a file several reads long, lines across the reads whole', async () => {
    const path = join(dir.path, 'lines.jsonl');
    // Multi-byte characters too: a line cut between two reads is joined as bytes, not as text.
    const lines = Array.from({ length: 5000 }, (_, i) => `${i}:é${'x'.repeat(i % 377)}€`);
    // The last line without its newline (a run still writing it) is read too.
    await writeFile(path, lines.join('\n'));
    const read: string[] = [];
    expect(
      await forEachLine(
        path,
        (bytes) => read.push(bytes.toString('utf8')),
        () => read.push('oversized'),
      ),
    ).toBe(true);
    expect(read).toEqual(lines);
    expect(
      await forEachLine(
        join(dir.path, 'gone.jsonl'),
        () => {},
        () => {},
      ),
    ).toBe(false);
  });

  it('passes over a journal name that is not a regular file (a FIFO would hang the open)', async () => {
    await mkdir(join(dir.path, '.vredact'), { recursive: true });
    await writeFile(
      journalPath(dir.path),
      line({ at: '2026-01-01T00:00:00.000Z', event: 'done', input: '/a.wav' }),
    );
    await execa('mkfifo', [journalPath(dir.path, { index: 1, count: 2 })]);
    await mkdir(journalPath(dir.path, { index: 2, count: 2 }));
    const state = await readJournals(dir.path);
    expect(state.files.map((file) => file.path)).toEqual([journalPath(dir.path)]);
    expect(state.latest.get('/a.wav')?.event).toBe('done');
  });

  it('refuses to write its records into a journal name that is not a regular file', async () => {
    await mkdir(join(dir.path, '.vredact'), { recursive: true });
    await execa('mkfifo', [journalPath(dir.path)]);
    const opened = JournalWriter.open(journalPath(dir.path));
    await expect(opened).rejects.toBeInstanceOf(LocalFsError);
    await expect(opened).rejects.toThrow(/opening the journal .*journal\.jsonl: not a regular file/);
  });

  it('merges the journals of every shard: the latest time wins per input', async () => {
    await mkdir(join(dir.path, '.vredact'), { recursive: true });
    const shard = (i: number) => journalPath(dir.path, { index: i, count: 2 });
    await writeFile(shard(1), line({ at: '2026-01-02T00:00:00.000Z', event: 'done', input: '/a.wav' }));
    await writeFile(shard(2), line({ at: '2026-01-01T00:00:00.000Z', event: 'failed', input: '/a.wav' }));
    await writeFile(
      journalPath(dir.path),
      line({ at: '2026-01-03T00:00:00.000Z', event: 'done', input: '/b.wav' }),
    );
    await writeFile(
      join(dir.path, '.vredact', 'journal.jsonl.bak'),
      line({ at: '2030', event: 'failed', input: '/b.wav' }),
    );
    const state = await readJournals(dir.path);
    expect(state.latest.get('/a.wav')?.event).toBe('done');
    expect(state.latest.get('/b.wav')?.event).toBe('done');
  });

  it('takes back an uploading line that is withdrawn: the record before it stands again', async () => {
    await mkdir(join(dir.path, '.vredact'), { recursive: true });
    const at = (second: number) => `2026-01-01T00:00:0${second}.000Z`;
    const lines = [
      // Done before, then an upload journaled ahead and withdrawn: done again, nothing interrupted.
      line({ at: at(1), event: 'done', input: '/done.wav' }),
      line({ at: at(2), event: 'uploading', input: '/done.wav', uploadName: 'done.1.wav' }),
      line({ at: at(3), event: 'withdrawn', input: '/done.wav', uploadName: 'done.1.wav' }),
      // Never recorded before: no record at all.
      line({ at: at(1), event: 'uploading', input: '/new.wav', uploadName: 'new.1.wav' }),
      line({ at: at(2), event: 'withdrawn', input: '/new.wav', uploadName: 'new.1.wav' }),
      // Two uploads cut short, the second withdrawn: the first is still looked up.
      line({ at: at(1), event: 'uploading', input: '/cut.wav', uploadName: 'cut.1.wav' }),
      line({ at: at(2), event: 'uploading', input: '/cut.wav', uploadName: 'cut.2.wav', outputAbsent: true }),
      line({ at: at(3), event: 'withdrawn', input: '/cut.wav', uploadName: 'cut.2.wav' }),
      // Another upload's name takes nothing back.
      line({ at: at(1), event: 'uploading', input: '/other.wav', uploadName: 'other.1.wav' }),
      line({ at: at(2), event: 'withdrawn', input: '/other.wav', uploadName: 'other.0.wav' }),
    ];
    await writeFile(journalPath(dir.path), lines.join(''));
    const state = await readJournals(dir.path);
    expect(state.latest.get('/done.wav')?.event).toBe('done');
    expect(state.latest.has('/new.wav')).toBe(false);
    // The upload of cut.1.wav is the last record again, with its own start time.
    expect(state.latest.get('/cut.wav')).toMatchObject({ event: 'uploading', at: at(1) });
    const cut = state.latest.rowFor('/cut.wav') as number;
    expect(state.interrupted.lastUploadIs(cut, 'cut.1.wav')).toBe(true);
    // What it says of its output is its own, not the withdrawn upload's.
    expect(state.interrupted.get('/cut.wav')).toEqual({
      sinceMs: Date.parse(at(1)),
      uploads: 1,
      before: undefined,
      lastStartedMs: Date.parse(at(1)),
      lastSawNoOutput: false,
    });
    const other = state.latest.rowFor('/other.wav') as number;
    expect(state.interrupted.lastUploadIs(other, 'other.1.wav')).toBe(true);
    expect(state.interrupted.size).toBe(2);
    expect(['/done.wav', '/new.wav'].filter((input) => state.interrupted.has(input))).toEqual([]);
    expect(state.unreadable).toBe(0);
  });

  it('keeps a settled record compact, its fingerprint held once, and counts the lines and inputs of each file', async () => {
    await mkdir(join(dir.path, '.vredact'), { recursive: true });
    const done = (input: string, second: number) =>
      line({
        at: `2026-01-01T00:00:0${second}.000Z`,
        event: 'done',
        input,
        output: 'a.wav',
        outputSha256: 'f'.repeat(64),
        voice: { voice_id: 'x' },
      });
    await writeFile(
      journalPath(dir.path),
      done('/a.wav', 1) +
        done('/b.wav', 2) +
        done('/a.wav', 3) +
        line({ at: '2026-01-01T00:00:04.000Z', event: 'failed', input: '/c.wav', reason: 'no', jobId: 'j1' }),
    );
    await writeFile(journalPath(dir.path, { index: 1, count: 2 }), done('/d.wav', 5));
    const state = await readJournals(dir.path);
    const a = state.latest.get('/a.wav');
    expect(a).toBeInstanceOf(SettledRecord);
    expect({ ...a, v: a?.v }).toMatchObject({
      v: 1,
      event: 'done',
      at: '2026-01-01T00:00:03.000Z',
      input: '/a.wav',
      size: 100,
      mtimeMs: 1234.5,
      options: base.options,
      jobId: undefined,
      reason: undefined,
    });
    expect(a).not.toHaveProperty('outputSha256');
    expect(state.latest.get('/c.wav')).toMatchObject({ event: 'failed', reason: 'no', jobId: 'j1' });
    expect(
      await jobIdsNamed(
        state.files.map((file) => file.path),
        new Set(['j1', 'j9']),
      ),
    ).toEqual(new Set(['j1']));
    expect(state.latest.get('/b.wav')?.options).toBe(a?.options);
    expect(state.files.map(({ path, lines, inputs }) => [path, lines, inputs])).toEqual([
      [journalPath(dir.path, { index: 1, count: 2 }), 1, 1],
      [journalPath(dir.path), 4, 3],
    ]);
  });

  it('creates the journal 0600 in a 0700 folder', async () => {
    const path = journalPath(dir.path, { index: 1, count: 3 });
    const writer = await JournalWriter.open(path);
    await writer.append({ event: 'failed', input: '/a.wav', ...base, reason: 'x' }, true);
    await writer.close();
    expect((await stat(path)).mode & 0o777).toBe(0o600);
    expect((await stat(join(dir.path, '.vredact'))).mode & 0o777).toBe(0o700);
    expect(path.endsWith('journal.1-of-3.jsonl')).toBe(true);
  });
});
