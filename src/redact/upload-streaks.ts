/**
 * The inputs whose last journal record is `uploading`: uploads cut short (a crash, an answer that
 * never came), several in a row when nights of them followed one another (a streak). A run looks for
 * their jobs before it sends them again, and otherwise does what the record before the streak says.
 *
 * Held by row of the store beside it (RecordTable or another RecordStore), as typed columns: each
 * upload of a streak is a node (its start time, a 53-bit hash of its upload name, the line it came
 * from, the node before it), and nodes freed when a streak ends are used again. The record before a
 * streak is held in a store like the one beside it. The upload names are not held: the look-up asks
 * the journals again for the few names that recent jobs list (see reconcile.ts). Whole records in a
 * map cost about 550 bytes an interrupted input and 400 more for each further upload of its streak:
 * 864 MB for a dry run over 1,000,000 inputs cut short once.
 */
import { Float64Column, Uint32Column, Uint8Column } from './chunked-columns.js';
import type { JournalRecord } from './journal.js';
import { hashKey } from './key-index.js';

/** An input whose last record is `uploading`: what the run knows of its uploads in a row. */
export interface InterruptedUpload {
  /** When the first of its uploads in a row (same size, time and options) started (ms since the epoch). */
  sinceMs: number;
  /** How many uploads in a row were cut short. */
  uploads: number;
  /** Its last record before those uploads, if any: what a re-run does when no job of them is found. */
  before: JournalRecord | undefined;
  /** When the last of those uploads started (ms since the epoch). */
  lastStartedMs: number;
  /**
   * The last upload began with no output at the input's place (its line says so): an output there
   * now was published by it, its `done` line lost in a crash (see adopt.ts).
   */
  lastSawNoOutput: boolean;
}

/** A store of records by input, as the streaks need of the one they sit beside. */
export interface StreakHost {
  /** The row of an input's record (`knownRow`: its row of a run's plan, see RecordTable#getFor). */
  rowFor(input: string, knownRow?: number): number | undefined;
  /** An empty store of the same kind: the records before the streaks. */
  emptyLike(): BeforeStore;
  /** The line a record was read from, when the store keeps lines (compaction). */
  lineOf?(record: JournalRecord): number;
}

export interface BeforeStore {
  put(record: JournalRecord, source: number): void;
  delete(input: string): boolean;
  getFor(input: string, knownRow: number | undefined): JournalRecord | undefined;
}

/** A 53-bit hash of an upload name: two 32-bit ones of different seeds. */
export function uploadNameHash(name: string): number {
  return (hashKey(name) & 0x1fffff) * 2 ** 32 + hashKey(name, 0x2f1a3b5d);
}

/** The upload before the one taken back: the input's last record again. */
export interface PoppedUpload {
  atMs: number;
  line: number;
}

export class UploadStreaks {
  readonly #host: StreakHost;
  readonly #before: BeforeStore;
  /** Each row's last node + 1 (0: not interrupted). */
  readonly #head = new Uint32Column();
  /** Each node's start time, upload name hash, line and the node before it + 1. */
  readonly #atMs = new Float64Column();
  readonly #name = new Float64Column();
  readonly #line = new Uint32Column();
  readonly #previous = new Uint32Column();
  /** 1 when the node's upload began with no output at the input's place. */
  readonly #sawNoOutput = new Uint8Column();
  #nodes = 0;
  /** Freed nodes, linked through #previous (node + 1; 0: none). */
  #free = 0;
  #size = 0;

  constructor(host: StreakHost) {
    this.#host = host;
    this.#before = host.emptyLike();
  }

  /** Inputs interrupted. */
  get size(): number {
    return this.#size;
  }

  has(input: string, knownRow?: number): boolean {
    const row = this.#host.rowFor(input, knownRow);
    return row !== undefined && this.#head.get(row) !== 0;
  }

  get(input: string, knownRow?: number): InterruptedUpload | undefined {
    const row = this.#host.rowFor(input, knownRow);
    const head = row === undefined ? 0 : this.#head.get(row);
    if (head === 0) return undefined;
    let sinceMs = Number.POSITIVE_INFINITY;
    let uploads = 0;
    for (let node = head; node !== 0; node = this.#previous.get(node - 1)) {
      sinceMs = Math.min(sinceMs, this.#atMs.get(node - 1));
      uploads++;
    }
    return {
      sinceMs,
      uploads,
      before: this.#before.getFor(input, knownRow),
      lastStartedMs: this.#atMs.get(head - 1),
      lastSawNoOutput: this.#sawNoOutput.get(head - 1) === 1,
    };
  }

  /**
   * Adds an `uploading` record already put in the host: a streak goes on when the input's last record
   * was an upload of the same size, time and options; otherwise one starts, after `before` (the
   * input's last record, if it was not an upload; the record before its streak stays if it was).
   */
  add(record: JournalRecord, row: number, continues: boolean, before: JournalRecord | undefined): void {
    const head = this.#head.get(row);
    if (!continues) {
      if (head !== 0) this.#freeStreak(head);
      else {
        this.#size++;
        if (before) this.#before.put(before, 0);
      }
    }
    const node = this.#take();
    this.#atMs.set(node, Date.parse(record.at));
    this.#name.set(node, uploadNameHash(record.uploadName ?? ''));
    this.#sawNoOutput.set(node, record.outputAbsent === true ? 1 : 0);
    // Only compaction keeps lines: a run's column is never allocated.
    if (this.#host.lineOf) this.#line.set(node, this.#host.lineOf(record));
    this.#previous.set(node, continues ? head : 0);
    this.#head.set(row, node + 1);
  }

  /** Ends an input's streak: its last record is no longer an upload. */
  end(input: string, row: number): void {
    const head = this.#head.get(row);
    if (head === 0) return;
    this.#freeStreak(head);
    this.#head.set(row, 0);
    this.#before.delete(input);
    this.#size--;
  }

  /** Whether the input's last upload carried `name`. */
  lastUploadIs(row: number, name: string): boolean {
    const head = this.#head.get(row);
    return head !== 0 && this.#name.get(head - 1) === uploadNameHash(name);
  }

  /**
   * Takes back the last upload of a streak: the upload before it, if any, is given back (the input's
   * last record again); when there is none, the streak ends, and its record before, if any, is given.
   */
  pop(input: string, row: number): PoppedUpload | { before: JournalRecord | undefined } {
    const head = this.#head.get(row);
    const previous = this.#previous.get(head - 1);
    this.#release(head - 1);
    if (previous !== 0) {
      this.#head.set(row, previous);
      return { atMs: this.#atMs.get(previous - 1), line: this.#line.get(previous - 1) };
    }
    const before = this.#before.getFor(input, undefined);
    this.#head.set(row, 0);
    this.#before.delete(input);
    this.#size--;
    return { before };
  }

  /** The lines of a row's streak, the last first (compaction keeps them). */
  *linesOf(row: number): IterableIterator<number> {
    for (let node = this.#head.get(row); node !== 0; node = this.#previous.get(node - 1)) {
      yield this.#line.get(node - 1);
    }
  }

  /** The record before an input's streak. */
  beforeOf(input: string): JournalRecord | undefined {
    return this.#before.getFor(input, undefined);
  }

  #take(): number {
    if (this.#free === 0) return this.#nodes++;
    const node = this.#free - 1;
    this.#free = this.#previous.get(node);
    return node;
  }

  #release(node: number): void {
    this.#previous.set(node, this.#free);
    this.#free = node + 1;
  }

  #freeStreak(head: number): void {
    for (let node = head; node !== 0;) {
      const previous = this.#previous.get(node - 1);
      this.#release(node - 1);
      node = previous;
    }
  }
}
