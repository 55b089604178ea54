/** A run's table of last records holds where each submitted line is and reads it again when asked. */
import { open, readdir, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { JournalRecord } from '../../src/redact/journal.js';
import {
  emptyJournalState,
  forEachLine,
  type JournalState,
  readJournalFiles,
} from '../../src/redact/journal-read.js';
import { OpenJournals } from '../../src/redact/journal-lines-at.js';
import { RecordTable } from '../../src/redact/record-table.js';
import { WholeRecords } from '../../src/redact/record-store.js';
import { tempDirPerTest } from '../helpers/cli.js';
import { expectSameDecisions, someRecords } from '../helpers/journal-records.js';

const dir = tempDirPerTest('vredact-lines-at-');

/** Writes the records to three journal files by their source; returns the files' paths. */
async function journals(records: { record: JournalRecord; source: number }[]): Promise<string[]> {
  const paths = [0, 1, 2].map((source) => join(dir.path, `journal.${source}-of-3.jsonl`));
  for (const [source, path] of paths.entries()) {
    const lines = records.filter((item) => item.source === source).map((item) => JSON.stringify(item.record));
    await writeFile(path, `${lines.join('\n')}\n`);
  }
  return paths;
}

/** Reads the journals as a run does, its files kept open while `use` runs. */
async function withOpen(paths: string[], use: (state: JournalState) => void | Promise<void>) {
  const lines = new OpenJournals();
  try {
    const table = new RecordTable(undefined, { lines });
    await use(await readJournalFiles(paths, emptyJournalState(table), { open: lines }));
  } finally {
    await lines.close();
  }
}

const submitted = (fields: Partial<JournalRecord>): JournalRecord => ({
  v: 1,
  event: 'submitted',
  at: '2026-11-25T02:00:00.000Z',
  input: '/in/a.wav',
  size: 100,
  mtimeMs: 1,
  options: 'fp',
  jobId: 'job-1',
  uploadName: 'a.1a2b3c4d.wav',
  durationSec: 7,
  inputSha256: 'ab'.repeat(32),
  ...fields,
});

describe('submitted lines read again where they are', () => {
  it('gives back what holding every record whole gives, the records before upload streaks too', async () => {
    for (const seed of [11, 12, 13]) {
      const paths = await journals(someRecords(600, seed));
      const whole = await readJournalFiles(paths, emptyJournalState(new WholeRecords()), { full: true });
      await withOpen(paths, (state) => expectSameDecisions(state, whole));
    }
  });

  it('reads the file it read, whatever is renamed over its name since (a shard compacting)', async () => {
    const path = join(dir.path, 'journal.jsonl');
    await writeFile(path, `${JSON.stringify(submitted({}))}\n`);
    await withOpen([path], async (state) => {
      const other = join(dir.path, 'compacted.jsonl');
      await writeFile(
        other,
        `${JSON.stringify(submitted({ jobId: 'job-other', at: '2026-11-25T03:00:00.000Z' }))}\n`,
      );
      await rename(other, path);
      expect(state.latest.get('/in/a.wav')).toMatchObject({ jobId: 'job-1', durationSec: 7 });
    });
  });

  it('stops with a reason when the file was changed in place under the run, never giving another job', async () => {
    const path = join(dir.path, 'journal.jsonl');
    await writeFile(path, `${JSON.stringify(submitted({}))}\n`);
    await withOpen([path], async (state) => {
      const handle = await open(path, 'r+');
      await handle.write(JSON.stringify(submitted({ input: '/in/b.wav', jobId: 'job-2' })), 0);
      await handle.close();
      expect(() => state.latest.get('/in/a.wav')).toThrow(/changed while this run held it/);
    });
  });

  it.runIf(process.platform === 'linux')(
    'keeps open only the files that hold a submitted line: a folder of many shards holds few',
    async () => {
      const paths = Array.from({ length: 20 }, (_, i) => join(dir.path, `journal.${i}-of-20.jsonl`));
      for (const [i, path] of paths.entries()) {
        const record = submitted({ input: `/in/${i}.wav` });
        await writeFile(path, `${JSON.stringify(i === 3 ? record : { ...record, event: 'done' })}\n`);
      }
      const openFiles = async () => (await readdir('/proc/self/fd')).length;
      const before = await openFiles();
      await withOpen(paths, async (state) => {
        expect((await openFiles()) - before).toBe(1);
        expect(state.latest.get('/in/3.wav')).toMatchObject({ event: 'submitted', jobId: 'job-1' });
      });
      expect(await openFiles()).toBe(before);
    },
  );

  it('tells where each line starts, lines across reads and blank lines included', async () => {
    const path = join(dir.path, 'lines.jsonl');
    const text = Array.from({ length: 3000 }, (_, i) => `${i}:é${'x'.repeat(i % 311)}`).join('\n\n');
    await writeFile(path, text);
    const bytes = Buffer.from(text);
    let count = 0;
    await forEachLine(
      path,
      (line, offset) => {
        expect(bytes.subarray(offset, offset + line.length).equals(line)).toBe(true);
        count++;
      },
      () => {},
    );
    expect(count).toBe(3000);
  });
});
