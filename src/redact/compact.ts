/**
 * Journal compaction. A journal is append only, so re-runs make it grow with the history of the
 * archive rather than its size. When a journal has more than twice as many lines as inputs plus a
 * thousand, a run rewrites it (under its lock, before it appends anything) as one line per input: the
 * latest, or for an interrupted upload the record before it and the `uploading` lines of its streak,
 * which recovery needs. Written to a temporary file, flushed, renamed over the journal: a crash leaves
 * the old journal or the new one, never a mix.
 */
import { randomBytes } from 'node:crypto';
import { open, rename, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { asLocalFsError } from '../fs/errors.js';
import type { JournalRecord } from './journal.js';
import { type JournalFileCounts, readJournal } from './journal-read.js';

/** Lines worth keeping no matter what: below this, compaction would save nothing that matters. */
export const COMPACT_SLACK_LINES = 1000;

export function needsCompaction(lines: number, inputs: number): boolean {
  return lines > 2 * inputs + COMPACT_SLACK_LINES;
}

export interface CompactResult {
  before: number;
  after: number;
}

/**
 * Compacts one journal file if it has grown well past one line per input; undefined when left as it
 * is. `counted` is the file as a read of the journals found it (its lines and inputs): when it needs
 * no compaction the file is not read again, and every field of every line is held only when it does.
 */
export async function compactJournal(
  path: string,
  counted?: Pick<JournalFileCounts, 'lines' | 'inputs'>,
): Promise<CompactResult | undefined> {
  if (counted && !needsCompaction(counted.lines, counted.inputs)) return undefined;
  const state = await readJournal(path);
  if (!needsCompaction(state.lines, state.latest.size)) return undefined;
  const temp = join(dirname(path), `.journal-compact-${randomBytes(6).toString('hex')}.tmp`);
  let after = 0;
  try {
    const handle = await open(temp, 'wx', 0o600);
    try {
      let buffered: string[] = [];
      const write = async (record: JournalRecord | undefined) => {
        if (!record) return;
        buffered.push(JSON.stringify(record));
        after++;
        if (buffered.length >= 1000) {
          await handle.appendFile(`${buffered.join('\n')}\n`);
          buffered = [];
        }
      };
      for (const [input, latest] of state.latest) {
        const interrupted = state.interrupted.get(input);
        if (interrupted) {
          await write(interrupted.before);
          for (const record of interrupted.streak) await write(record);
        } else {
          await write(latest);
        }
      }
      if (buffered.length > 0) await handle.appendFile(`${buffered.join('\n')}\n`);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temp, path);
  } catch (error) {
    await rm(temp, { force: true }).catch(() => {});
    throw asLocalFsError(error, path, 'compacting the journal');
  }
  return { before: state.lines, after };
}
