/** Reading every journal of a folder: shards' journals merged, damaged and oversized lines skipped. */
import { mkdir, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { journalPath, optionsFingerprint } from '../../src/redact/journal.js';
import { forEachLine, readJournals } from '../../src/redact/journal-read.js';
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
