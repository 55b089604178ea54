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

test('a journal name that is not a regular file (a folder, a FIFO) is passed over, never waited on', async () => {
  await writeJournal(dir.path, [{ at: '2026-11-21T02:00:00.000Z', event: 'done', input: '/in/a.wav' }]);
  await mkdir(join(dir.path, '.vredact', 'journal.1-of-2.jsonl'));
  await execa('mkfifo', [join(dir.path, '.vredact', 'journal.2-of-2.jsonl')]);
  const read = await readAll(dir.path);
  expect(read.files).toEqual(['journal.jsonl']);
  expect(read.latest.size).toBe(1);
});

test('an upload withdrawn (a stopped run never sent it) leaves the input as it was, no line unreadable', async () => {
  await writeJournal(dir.path, [
    { at: '2026-11-21T02:00:00.000Z', event: 'uploading', input: '/in/a.wav', uploadName: 'a-1.wav' },
    { at: '2026-11-21T02:00:01.000Z', event: 'done', input: '/in/a.wav', output: 'a.wav' },
    { at: '2026-11-21T03:00:00.000Z', event: 'uploading', input: '/in/a.wav', uploadName: 'a-2.wav' },
    { at: '2026-11-21T03:00:00.000Z', event: 'uploading', input: '/in/b.wav', uploadName: 'b-2.wav' },
    { at: '2026-11-21T03:00:01.000Z', event: 'withdrawn', input: '/in/a.wav', uploadName: 'a-2.wav' },
    { at: '2026-11-21T03:00:01.000Z', event: 'withdrawn', input: '/in/b.wav', uploadName: 'b-2.wav' },
  ]);
  const read = await readAll(dir.path);
  expect(read.unreadable).toBe(0);
  expect(read.latest.get('/in/a.wav')).toMatchObject({ event: 'done', at: '2026-11-21T02:00:01.000Z' });
  // Never sent and never recorded before: status has nothing to say of it, as a run has not.
  expect(read.latest.get('/in/b.wav')).toBeUndefined();
  expect([...read.latest.keys()]).toEqual(['/in/a.wav']);
});

test('a line the run cannot use (an upload without its name) is counted unreadable, as the run counts it', async () => {
  await writeJournal(dir.path, [
    { at: '2026-11-21T02:00:00.000Z', event: 'done', input: '/in/a.wav' },
    { at: '2026-11-21T03:00:00.000Z', event: 'uploading', input: '/in/a.wav' },
  ]);
  const read = await readAll(dir.path);
  expect(read.unreadable).toBe(1);
  expect(read.latest.get('/in/a.wav')?.event).toBe('done');
});

test('a journal renamed away between the listing and the reading is passed over', async () => {
  await writeJournal(dir.path, [{ at: '2026-11-21T02:00:00.000Z', event: 'done', input: '/in/a.wav' }]);
  const read = await readJournals(dir.path, ['journal.jsonl', 'journal.gone.jsonl'], { details: false });
  expect(read.files).toEqual(['journal.jsonl']);
  expect(read.latest.size).toBe(1);
});

test('an upload a live run began in its own journal is in flight; any other one is cut short', async () => {
  const upload = (input: string, at: string) => ({ at, event: 'uploading', input, uploadName: `${input}-1` });
  await writeJournal(
    dir.path,
    [upload('/in/old.wav', '2026-11-21T01:59:59.999Z'), upload('/in/new.wav', '2026-11-21T02:00:00.000Z')],
    'journal.1-of-2.jsonl',
  );
  await writeJournal(dir.path, [upload('/in/other.wav', '2026-11-21T03:00:00.000Z')], 'journal.2-of-2.jsonl');
  const names = ['journal.1-of-2.jsonl', 'journal.2-of-2.jsonl'];
  const runsUnderWay = new Map([['lock.1-of-2', Date.parse('2026-11-21T02:00:00.000Z')]]);
  const read = await readJournals(dir.path, names, { details: false, runsUnderWay });
  expect(read.latest.stateOf('/in/new.wav')).toBe('uploading');
  expect(read.latest.get('/in/new.wav')).toMatchObject({ event: 'uploading', inFlight: true });
  // Begun before the live run started: a dead run's upload, which the live run takes as cut short.
  expect(read.latest.stateOf('/in/old.wav')).toBe('pending');
  expect(read.latest.get('/in/old.wav')?.inFlight).toBeUndefined();
  // No run holds shard 2's lock.
  expect(read.latest.stateOf('/in/other.wav')).toBe('pending');
  const withoutRuns = await readJournals(dir.path, names, { details: false });
  expect(withoutRuns.latest.stateOf('/in/new.wav')).toBe('pending');
});
