import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';
import { expect, test } from 'vitest';
import { listJournals, readJournals } from '../../src/status/read-journals.js';
import { tempDirPerTest } from '../helpers/cli.js';
import { writeJournal } from '../helpers/journal.js';

const dir = tempDirPerTest('vredact-read-journals-');

async function readAll(outDir: string) {
  const names = (await listJournals(outDir)) ?? [];
  return readJournals(outDir, names, { details: true });
}

test('lists the journals of every run and shard, and nothing else', async () => {
  await writeJournal(dir.path, [], 'journal.jsonl');
  await writeJournal(dir.path, [], 'journal.2-of-3.jsonl');
  await writeFile(join(dir.path, '.vredact', 'lock'), '1');
  await writeFile(join(dir.path, '.vredact', 'journal.jsonl.tmp'), '');
  expect(await listJournals(dir.path)).toEqual(['journal.2-of-3.jsonl', 'journal.jsonl']);
});

test('a folder without a state folder has no journals', async () => {
  expect(await listJournals(dir.path)).toBeUndefined();
  expect(await listJournals(join(dir.path, 'missing'))).toBeUndefined();
  await mkdir(join(dir.path, '.vredact'));
  expect(await listJournals(dir.path)).toEqual([]);
});

test('within one file the later line wins, whatever its time says', async () => {
  await writeJournal(dir.path, [
    { at: '2026-11-21T02:00:05.000Z', event: 'uploading', input: '/in/a.wav' },
    { at: '2026-11-21T02:00:01.000Z', event: 'done', input: '/in/a.wav' },
  ]);
  const read = await readAll(dir.path);
  expect(read.latest.get('/in/a.wav')?.event).toBe('done');
});

test('across files the latest time wins, in whichever order the files are read', async () => {
  await writeJournal(
    dir.path,
    [
      { at: '2026-11-21T03:00:00.000Z', event: 'done', input: '/in/a.wav' },
      { at: '2026-11-21T01:00:00.000Z', event: 'failed', input: '/in/b.wav', reason: 'old' },
    ],
    'journal.1-of-2.jsonl',
  );
  await writeJournal(
    dir.path,
    [
      { at: '2026-11-21T02:00:00.000Z', event: 'failed', input: '/in/a.wav', reason: 'older' },
      { at: '2026-11-21T02:00:00.000Z', event: 'done', input: '/in/b.wav' },
      { at: 'garbage', event: 'failed', input: '/in/b.wav' },
    ],
    'journal.2-of-2.jsonl',
  );
  const read = await readAll(dir.path);
  expect(read.latest.get('/in/a.wav')?.event).toBe('done');
  // Within the second file the garbage-timed line is later, so it wins there.
  expect(read.latest.get('/in/b.wav')?.event).toBe('failed');
  expect(read.latest.get('/in/b.wav')?.reason).toBeUndefined();
  expect(read.files).toEqual(['journal.1-of-2.jsonl', 'journal.2-of-2.jsonl']);
});

test('damaged and oversized lines are skipped and counted; the rest is read', async () => {
  await writeJournal(dir.path, [
    { at: '2026-11-21T02:00:00.000Z', event: 'done', input: '/in/a.wav' },
    '{"v":1,"event":"done","inp',
    'x'.repeat(2000),
    { at: '2026-11-21T02:00:00.000Z', event: 'failed', input: '/in/b.wav' },
  ]);
  const read = await readJournals(dir.path, ['journal.jsonl'], { details: false, maxLineBytes: 1000 });
  expect([...read.latest.keys()].sort()).toEqual(['/in/a.wav', '/in/b.wav']);
  expect(read.lines).toBe(4);
  expect(read.unreadable).toBe(2);
});

test('a name that is not a regular file (a folder, a FIFO) is passed over, never waited on', async () => {
  await writeJournal(dir.path, [{ at: '2026-11-21T02:00:00.000Z', event: 'done', input: '/in/a.wav' }]);
  await mkdir(join(dir.path, '.vredact', 'journal.dir.jsonl'));
  await execa('mkfifo', [join(dir.path, '.vredact', 'journal.fifo.jsonl')]);
  const read = await readAll(dir.path);
  expect(read.files).toEqual(['journal.jsonl']);
  expect(read.latest.size).toBe(1);
});

test('a journal renamed away between the listing and the reading is passed over', async () => {
  await writeJournal(dir.path, [{ at: '2026-11-21T02:00:00.000Z', event: 'done', input: '/in/a.wav' }]);
  const read = await readJournals(dir.path, ['journal.jsonl', 'journal.gone.jsonl'], { details: false });
  expect(read.files).toEqual(['journal.jsonl']);
  expect(read.latest.size).toBe(1);
});
