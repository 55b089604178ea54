/**
 * Reads every journal of an output folder (`journal.jsonl`, and `journal.<i>-of-<n>.jsonl` of
 * shards) into the last record of each input. Across files the record with the latest `at` wins;
 * within one file a later line wins (it was appended later, whatever the clock said).
 */
import { constants } from 'node:fs';
import { open, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { asLocalFsError, errnoCode } from '../fs/errors.js';
import { JOURNAL_FILE, STATE_DIR } from '../redact/journal.js';
import { type LineScan, MAX_LINE_BYTES, readLines } from './journal-lines.js';
import { parseRecord, type StatusRecord } from './records.js';

export interface JournalsRead {
  /** The journal files read, by name, in the order they were read. */
  files: string[];
  /** The last record of each input, by its real path. */
  latest: Map<string, StatusRecord>;
  lines: number;
  /** Lines that are not records (damage, a torn last line) or over the size bound: skipped. */
  unreadable: number;
}

/** The journals of `outDir`, sorted by name; undefined when it has no state folder at all. */
export async function listJournals(outDir: string): Promise<string[] | undefined> {
  const stateDir = join(outDir, STATE_DIR);
  let names: string[];
  try {
    names = await readdir(stateDir);
  } catch (error) {
    if (errnoCode(error) === 'ENOENT' || errnoCode(error) === 'ENOTDIR') return undefined;
    throw asLocalFsError(error, stateDir, 'reading');
  }
  return names.filter((name) => JOURNAL_FILE.test(name)).sort();
}

/** Which record of one input to keep, the one held or the next one read. */
function wins(next: StatusRecord, held: StatusRecord): boolean {
  if (next.file === held.file) return true;
  // An unreadable time loses to any readable one; between two, the later wins, a tie keeps the first.
  if (Number.isNaN(next.atMs)) return false;
  return Number.isNaN(held.atMs) || next.atMs > held.atMs;
}

export interface ReadOptions {
  /** Keep the hashes and the voice of each record (for the manifest). */
  details: boolean;
  maxLineBytes?: number;
}

/** Reads the named journals of `outDir` once each, line by line, each line bounded. */
export async function readJournals(
  outDir: string,
  names: readonly string[],
  options: ReadOptions = { details: true },
): Promise<JournalsRead> {
  const stateDir = join(outDir, STATE_DIR);
  const latest = new Map<string, StatusRecord>();
  const read: JournalsRead = { files: [], latest, lines: 0, unreadable: 0 };
  for (const [index, name] of names.entries()) {
    const path = join(stateDir, name);
    let handle;
    try {
      // Non-blocking, so that a FIFO under a journal's name cannot hang the open; regular files ignore it.
      handle = await open(path, constants.O_RDONLY | constants.O_NONBLOCK);
    } catch (error) {
      // Renamed away between the listing and now (a compaction): its records are in the new file.
      if (errnoCode(error) === 'ENOENT') continue;
      throw asLocalFsError(error, path, 'reading');
    }
    const scan: LineScan = { oversized: 0 };
    try {
      // Only a regular file is a journal.
      if (!(await handle.stat()).isFile()) continue;
      for await (const line of readLines(handle, scan, options.maxLineBytes ?? MAX_LINE_BYTES)) {
        read.lines++;
        const record = parseRecord(line, { file: index, details: options.details });
        if (!record) {
          read.unreadable++;
          continue;
        }
        const held = latest.get(record.input);
        if (held && !wins(record, held)) continue;
        latest.set(record.input, record);
      }
    } catch (error) {
      throw asLocalFsError(error, path, 'reading');
    } finally {
      await handle.close();
    }
    read.lines += scan.oversized;
    read.unreadable += scan.oversized;
    read.files.push(name);
  }
  return read;
}
