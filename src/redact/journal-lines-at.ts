/**
 * The journal files a run has read, kept open so that a line can be read again where it was: a run
 * holds where each input's `submitted` line is (one number) instead of what collecting its job needs
 * (about 110 bytes packed): over 1,000,000 jobs sent with `--no-wait`, 90 MB. A file kept open is the
 * file read, whatever is renamed over its name since (a shard's compaction), and journals are only
 * ever appended to, so a line is where it was for as long as the run holds the file.
 */
import { readSync } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import { CliError, ExitCode } from '../errors.js';
import { displayText } from '../output/sanitize.js';
import type { JournalRecord } from './journal.js';
import { MAX_LINE_BYTES } from './journal-lines.js';

/** A line's place is its file's number times this, plus where it starts: both in one number. */
const FILE_SPAN = 2 ** 40;
/** Files past this many (of one folder) have no places: 2^13 × 2^40 stays an exact integer. */
const MAX_FILES = 2 ** 13;

/** Where a record's line is, on the record (see placeOf). */
const PLACE = Symbol('place');
type Placed = JournalRecord & { [PLACE]?: number };

export function placeOf(record: JournalRecord): number | undefined {
  return (record as Placed)[PLACE];
}

export class OpenJournals {
  readonly #handles: (FileHandle | undefined)[] = [];
  readonly #paths: string[] = [];
  /** Files with a place noted: the others are closed once read (a folder may hold many shards'). */
  readonly #placed: boolean[] = [];
  #buffer = Buffer.allocUnsafeSlow(4096);

  add(source: number, path: string, handle: FileHandle): void {
    this.#handles[source] = handle;
    this.#paths[source] = path;
  }

  /** Notes on a record where its line is: file `source`, starting at byte `offset`. */
  markPlace(record: JournalRecord, source: number, offset: number): void {
    if (source >= MAX_FILES || offset >= FILE_SPAN) return;
    (record as Placed)[PLACE] = source * FILE_SPAN + offset;
    this.#placed[source] = true;
  }

  /**
   * Notes on a record where its line is, without keeping its file open: whoever holds the place keeps
   * it (keepOpen).
   */
  notePlace(record: JournalRecord, source: number, offset: number): void {
    if (source >= MAX_FILES || offset >= FILE_SPAN) return;
    (record as Placed)[PLACE] = source * FILE_SPAN + offset;
  }

  /** Keeps the file of `place` open for its line to be read again; false when it is closed already. */
  keepOpen(place: number): boolean {
    const source = Math.floor(place / FILE_SPAN);
    if (this.#handles[source] === undefined) return false;
    this.#placed[source] = true;
    return true;
  }

  /** Closes file `source` now that it is read, unless a place in it was noted. */
  async doneReading(source: number): Promise<void> {
    const handle = this.#handles[source];
    if (handle === undefined || this.#placed[source]) return;
    this.#handles[source] = undefined;
    await handle.close();
  }

  /**
   * The record whose line is at `place`, which must be the one of `input` at `at` that was read
   * there: anything else means the file was changed in place under the run, which is stopped with a
   * reason rather than given another input's job.
   */
  recordAt(place: number, input: string, at: string): JournalRecord {
    const source = Math.floor(place / FILE_SPAN);
    const text = this.#lineAt(source, place % FILE_SPAN);
    let record: unknown;
    try {
      record = text === undefined ? undefined : JSON.parse(text);
    } catch {
      record = undefined;
    }
    const found = record as Partial<JournalRecord> | undefined;
    if (found?.input !== input || found.at !== at) {
      throw new CliError(
        `the journal ${displayText(this.#paths[source] ?? `#${source}`)} changed while this run held it`,
        ExitCode.partial,
        'is something else writing it? run the same command again: nothing done is lost',
      );
    }
    (found as Placed)[PLACE] = place;
    return found as JournalRecord;
  }

  async close(): Promise<void> {
    const handles = this.#handles.splice(0);
    await Promise.all(handles.map((handle) => handle?.close()));
  }

  /** The line from `offset` to its newline (or the file's end), read synchronously: a few hundred bytes. */
  #lineAt(source: number, offset: number): string | undefined {
    const handle = this.#handles[source];
    if (handle === undefined) return undefined;
    for (let size = this.#buffer.length; ; size *= 4) {
      if (this.#buffer.length < size) this.#buffer = Buffer.allocUnsafeSlow(size);
      const read = readSync(handle.fd, this.#buffer, 0, size, offset);
      const end = this.#buffer.subarray(0, read).indexOf(0x0a);
      if (end >= 0 || read < size) return this.#buffer.toString('utf8', 0, end >= 0 ? end : read);
      if (size > MAX_LINE_BYTES) return undefined;
    }
  }
}
