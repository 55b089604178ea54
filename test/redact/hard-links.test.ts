import { copyFile, link, mkdir, stat, symlink, utimes } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { expandInputs } from '../../src/redact/inputs.js';
import type { JournalEvent, JournalRecord } from '../../src/redact/journal.js';
import { sameFileReason } from '../../src/redact/hard-links.js';
import { HardLinkRule } from '../../src/redact/journaled-links.js';
import { buildPlan, type PlanEntry } from '../../src/redact/plan.js';
import { WholeRecords } from '../../src/redact/record-store.js';
import { RecordTable } from '../../src/redact/record-table.js';
import { tempDirPerTest, touchFiles } from '../helpers/cli.js';

const dir = tempDirPerTest('vredact-hard-links-');
const FINGERPRINT = 'f00d';

async function plan(args: string[], shard?: { index: number; count: number }) {
  const expanded = await expandInputs({ cwd: dir.path, args, outDir: join(dir.path, 'out') });
  const result = await buildPlan(expanded, { cwd: dir.path, outDir: 'out', shard, ignoresCase: false });
  const byInput = Object.fromEntries([...result.entries].map((entry) => [entry.display, entry]));
  return { ...result, byInput };
}

async function doneRecord(path: string, event: JournalEvent = 'done'): Promise<JournalRecord> {
  const info = await stat(path);
  return {
    v: 1,
    event,
    at: '2026-11-20T02:00:00.000Z',
    input: path,
    size: info.size,
    mtimeMs: info.mtimeMs,
    options: FINGERPRINT,
  };
}

function journalOf(...records: JournalRecord[]): WholeRecords {
  const latest = new WholeRecords();
  for (const record of records) latest.put(record, 0);
  return latest;
}

/** The link an input the journal's rules would send gives way to, if any. */
async function sentLinkFor(rule: HardLinkRule, entry: PlanEntry | undefined, overwrite = false) {
  if (!entry) throw new Error('no such input');
  const info = await stat(entry.input);
  return rule.sentLinkFor(entry.row, entry.realPath, { size: info.size, mtimeMs: info.mtimeMs }, overwrite);
}

/** Why the rule does not send an input the journal's rules would send, if it does not. */
async function reasonFor(rule: HardLinkRule, entry: PlanEntry | undefined, overwrite = false) {
  const sent = await sentLinkFor(rule, entry, overwrite);
  return sent && sameFileReason(sent);
}

const shown = (path: string) => path.slice(dir.path.length + 1);

describe('hard links: one file, sent once', () => {
  it('never tracks a file with one link; tracks each link of a file with more, through a symbolic link too', async () => {
    await touchFiles(dir.path, 'in/plain.wav', 'in/a.wav', 'elsewhere/target.wav');
    await link(join(dir.path, 'in/a.wav'), join(dir.path, 'in/c.wav'));
    await link(join(dir.path, 'elsewhere/target.wav'), join(dir.path, 'elsewhere/twin.wav'));
    await symlink(join(dir.path, 'elsewhere/target.wav'), join(dir.path, 'in/via.wav'));
    const { hardLinks, byInput } = await plan(['in']);
    expect(hardLinks.size).toBe(3);
    expect(hardLinks.idAt(byInput['in/plain.wav']?.row as number)).toBeUndefined();
    const a = hardLinks.idAt(byInput['in/a.wav']?.row as number);
    expect(a).toBeDefined();
    expect(hardLinks.idAt(byInput['in/c.wav']?.row as number)).toEqual(a);
    expect(hardLinks.idAt(byInput['in/via.wav']?.row as number)?.id).not.toBe(a?.id);

    const plainOnly = await plan(['in/plain.wav']);
    expect(plainOnly.hardLinks.size).toBe(0);
  });

  it('sends the first link in the deciding order when the journal names none, the same one every run', async () => {
    await touchFiles(dir.path, 'in/b.wav');
    await link(join(dir.path, 'in/b.wav'), join(dir.path, 'in/a.wav'));
    await link(join(dir.path, 'in/b.wav'), join(dir.path, 'in/c.wav'));
    for (let run = 0; run < 3; run++) {
      const { hardLinks, byInput } = await plan(['in']);
      const rule = new HardLinkRule(hardLinks, journalOf(), FINGERPRINT, shown);
      expect(await reasonFor(rule, byInput['in/a.wav'])).toBeUndefined();
      expect(await reasonFor(rule, byInput['in/b.wav'])).toBe(
        'the same file as in/a.wav (a hard link): sent once as that',
      );
      expect(await reasonFor(rule, byInput['in/c.wav'])).toBe(
        'the same file as in/a.wav (a hard link): sent once as that',
      );
      // The output its redaction is written to is the sent link's: a skipped link has none of its own.
      expect(await sentLinkFor(rule, byInput['in/c.wav'])).toEqual({
        input: 'in/a.wav',
        output: 'out/a.wav',
        done: false,
      });
    }
  });

  it('prefers the link the journal already has (done, submitted or uploading) over the first', async () => {
    await touchFiles(dir.path, 'in/a.wav');
    await link(join(dir.path, 'in/a.wav'), join(dir.path, 'in/b.wav'));
    await link(join(dir.path, 'in/a.wav'), join(dir.path, 'in/c.wav'));
    for (const event of ['done', 'submitted', 'uploading'] as const) {
      const { hardLinks, byInput } = await plan(['in']);
      const journal = journalOf(
        await doneRecord(join(dir.path, 'in/a.wav'), 'failed'),
        await doneRecord(join(dir.path, 'in/c.wav'), event),
      );
      const rule = new HardLinkRule(hardLinks, journal, FINGERPRINT, shown);
      expect(await reasonFor(rule, byInput['in/c.wav']), event).toBeUndefined();
      expect(await reasonFor(rule, byInput['in/a.wav']), event).toBe(
        'the same file as in/c.wav (a hard link): sent once as that',
      );
    }
  });

  it('across runs: a new link to a file done under another path is not sent; a copy, other options or --overwrite are', async () => {
    await touchFiles(dir.path, 'night1/a.wav');
    const done = join(dir.path, 'night1/a.wav');
    await mkdir(join(dir.path, 'night2'));
    await link(done, join(dir.path, 'night2/a.wav'));
    await copyFile(done, join(dir.path, 'night2/copy.wav'));
    // The copy has the original's size and time: only its inode tells it from the original.
    const when = new Date('2026-11-20T01:00:00.000Z');
    await utimes(done, when, when);
    await utimes(join(dir.path, 'night2/copy.wav'), when, when);
    expect((await stat(join(dir.path, 'night2/copy.wav'))).mtimeMs).toBe((await stat(done)).mtimeMs);
    // A link of the copy makes it a file of two links too.
    await link(join(dir.path, 'night2/copy.wav'), join(dir.path, 'spare.wav'));

    const { hardLinks, byInput } = await plan(['night2']);
    const journal = journalOf(await doneRecord(done));
    const rule = new HardLinkRule(hardLinks, journal, FINGERPRINT, shown);
    expect(await reasonFor(rule, byInput['night2/a.wav'])).toBe(
      'the same file as night1/a.wav (a hard link), already done: sent once as that',
    );
    // Where an earlier run wrote it depends on that run's arguments, which the journal does not keep.
    expect(await sentLinkFor(rule, byInput['night2/a.wav'])).toEqual({
      input: 'night1/a.wav',
      output: '',
      done: true,
    });
    expect(await reasonFor(rule, byInput['night2/copy.wav'])).toBeUndefined();
    expect(await reasonFor(rule, byInput['night2/a.wav'], true)).toBeUndefined();
    const otherVoice = new HardLinkRule(hardLinks, journal, 'beef', shown);
    expect(await reasonFor(otherVoice, byInput['night2/a.wav'])).toBeUndefined();
    // Failed under the other path: nothing was done there, so this link is sent.
    const failed = new HardLinkRule(
      hardLinks,
      journalOf(await doneRecord(done, 'failed')),
      FINGERPRINT,
      shown,
    );
    expect(await reasonFor(failed, byInput['night2/a.wav'])).toBeUndefined();
  });

  it('shards: only the links in this shard share are grouped', async () => {
    await touchFiles(dir.path, 'in/a.wav');
    for (const name of ['b', 'c', 'd', 'e', 'f', 'g', 'h'])
      await link(join(dir.path, 'in/a.wav'), join(dir.path, `in/${name}.wav`));
    const sizes = [];
    for (const index of [1, 2]) {
      const { hardLinks, entries } = await plan(['in'], { index, count: 2 });
      expect(hardLinks.size).toBe(entries.length);
      sizes.push(hardLinks.size);
    }
    expect(sizes[0]! + sizes[1]!).toBe(8);
  });

  it('a record table gives back the done records as whole records do', async () => {
    const table = new RecordTable();
    const whole = new WholeRecords();
    const records: JournalRecord[] = [
      { v: 1, event: 'done', at: '2026-11-20T02:00:00.000Z', input: '/a', size: 1, mtimeMs: 2, options: 'x' },
      {
        v: 1,
        event: 'failed',
        at: '2026-11-20T02:00:00.000Z',
        input: '/b',
        size: 1,
        mtimeMs: 2,
        options: 'x',
      },
      {
        v: 1,
        event: 'done',
        at: '2026-11-20T02:00:01.000Z',
        input: '/c',
        size: 3,
        mtimeMs: 4.5,
        options: 'y',
      },
    ];
    for (const record of records) {
      table.put(record, 0);
      whole.put(record, 0);
    }
    const pick = (record: JournalRecord) => [record.input, record.size, record.mtimeMs, record.options];
    expect([...table.doneRecords()].map(pick)).toEqual([...whole.doneRecords()].map(pick));
    expect([...table.doneRecords()].map(pick)).toEqual([
      ['/a', 1, 2, 'x'],
      ['/c', 3, 4.5, 'y'],
    ]);
  });
});
