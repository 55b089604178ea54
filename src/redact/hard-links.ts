/**
 * A file reached by two hard links is one file (same device and inode), though each link has its own
 * real path: it is sent once. Only files with more than one link are held here (see FoundFiles), so a
 * plain archive pays nothing. Which link is sent is stable from run to run: the first, in the
 * deciding order, that the journals already name (done, submitted or uploading), else the first; the
 * others are skipped, saying which link was sent. A link done under another path by an earlier run is
 * found by journaled-links.ts.
 */
import type { HardLinkId } from './found-file.js';
import type { FoundFiles } from './found-files.js';
import type { JournalEvent } from './journal.js';
import type { RecordStore } from './record-store.js';

/** The journal's events that make a link the one to go on with: it was sent under that path. */
const SENT_EVENTS: ReadonlySet<JournalEvent | undefined> = new Set(['done', 'submitted', 'uploading']);

/** The link a file is sent (or was done) as, for each other link of it, which is not sent. */
export interface SentLink {
  /** Its input, as shown. */
  input: string;
  /**
   * Its output, as shown: the file that holds (or will hold, once it is done) the redaction of every
   * link. Empty when not known: a link done by an earlier run, whose output the journal's record
   * table does not keep (it depends on that run's arguments, so it cannot be worked out).
   */
  output: string;
  /** Done by an earlier run, not sent in this one. */
  done: boolean;
}

/** A skipped link's reason: the path of the link the file is sent (or was done) as. */
export function sameFileReason({ input, done }: SentLink): string {
  return `the same file as ${input} (a hard link)${done ? ', already done' : ''}: sent once as that`;
}

/** The files of a run's share (this shard's, not refused by the plan) that have more than one link. */
export class HardLinks {
  /** Each file's rows, in row order (the order the run decides them in); a file of one row has none. */
  readonly #rowsOf = new Map<string, number[] | number>();
  #size = 0;

  private constructor(readonly files: FoundFiles) {}

  /** `inRun`: whether a row is this run's to decide (its shard's, and not refused by the plan). */
  static of(files: FoundFiles, inRun: (row: number) => boolean): HardLinks {
    const links = new HardLinks(files);
    for (const [row, link] of files.hardLinked()) {
      if (!inRun(row)) continue;
      links.#size++;
      // A lone row is held as a number: most files of a snapshot have one link in the run's share.
      const rows = links.#rowsOf.get(link.id);
      if (rows === undefined) links.#rowsOf.set(link.id, row);
      else if (typeof rows === 'number') links.#rowsOf.set(link.id, [rows, row]);
      else rows.push(row);
    }
    return links;
  }

  /** Rows of files with more than one link, in this run's share. */
  get size(): number {
    return this.#size;
  }

  /** Only asked of a row of this run's share (the run decides no other). */
  idAt(row: number): HardLinkId | undefined {
    return this.files.hardLinkAt(row);
  }

  /** The sizes of the linked files found (other shards' too): a done record of another size is none of them. */
  sizes(): Set<number> {
    const sizes = new Set<number>();
    for (const [, link] of this.files.hardLinked()) sizes.add(link.size);
    return sizes;
  }

  /**
   * For each link that is not the one to send, the row of the one that is: the first link the
   * journals name as sent (done, submitted or uploading), else the first in row order.
   */
  chooseSent(latest: RecordStore): Map<number, number> {
    const sentAs = new Map<number, number>();
    for (const rows of this.#rowsOf.values()) {
      if (typeof rows === 'number') continue;
      const journaled = rows.find((row) =>
        SENT_EVENTS.has(latest.getFor(this.files.realPathAt(row), row)?.event),
      );
      const sent = journaled ?? (rows[0] as number);
      for (const row of rows) if (row !== sent) sentAs.set(row, sent);
    }
    return sentAs;
  }
}

/**
 * The shard key of each file of more than one hard link among the inputs, by its link id: the least of
 * its links' paths (relative to their roots), so that all its links fall in one shard and shards
 * running at once never each send their own link of it. Every shard lists every input, so each finds
 * the same least path. Not the inode: machines that each read their own copy of an archive number
 * its files each their own way, and a file whose inode falls in a shard that runs on another machine
 * would be sent by no shard. A path's key is its own or its file's least path: machines whose copies
 * disagree on the links may each send a link of a file, but never leave one to no shard.
 */
export function linkedShardKeys(files: FoundFiles): Map<string, string> {
  const keys = new Map<string, string>();
  for (const [row, link] of files.hardLinked()) {
    const key = files.at(row).key;
    const least = keys.get(link.id);
    if (least === undefined || key < least) keys.set(link.id, key);
  }
  return keys;
}
