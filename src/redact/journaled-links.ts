/**
 * The rule a run decides hard links by (see hard-links.ts): within the run, one link of a file is
 * sent; across runs, a link whose file is done under another path is not sent again. A journal line
 * names a path, its size and its time, never an inode; a file with more than one link whose size and
 * time are those of a done record of another path (with this run's options), and whose device and
 * inode are that path's now (one stat of it), is that very file. A copy has another inode, and is sent.
 */
import { statSync } from 'node:fs';
import type { HardLinks, SentLink } from './hard-links.js';
import type { JournalRecord } from './journal.js';
import type { RecordStore } from './record-store.js';
import type { Identity } from './work.js';

/** The device and inode of `path` now, as HardLinkId#id has them; undefined when it is gone. */
function fileIdOf(path: string): string | undefined {
  try {
    const info = statSync(path, { bigint: true, throwIfNoEntry: false });
    return info ? `${info.dev}:${info.ino}` : undefined;
  } catch {
    return undefined;
  }
}

export class HardLinkRule {
  readonly #links: HardLinks;
  readonly #latest: RecordStore;
  readonly #fingerprint: string;
  readonly #show: (path: string) => string;
  /** For each link not to send, the row of the one sent. */
  readonly #sentAs: Map<number, number>;
  /**
   * The done records of this run's options whose size is one of the linked files': built when the
   * first linked input would be sent, never for a run without one, held only as far as those sizes.
   */
  #doneBySize: Map<number, JournalRecord[]> | undefined;

  constructor(links: HardLinks, latest: RecordStore, fingerprint: string, show: (path: string) => string) {
    this.#links = links;
    this.#latest = latest;
    this.#fingerprint = fingerprint;
    this.#show = show;
    this.#sentAs = links.size > 1 ? links.chooseSent(latest) : new Map();
  }

  /**
   * The link the input of `row` (real path `realPath`, as `identity` now), which the journal's rules
   * would send, gives way to: another link of its file sent in this run, or (unless `overwrite`) one
   * done by an earlier run. Undefined when this input is to be sent.
   */
  sentLinkFor(
    row: number | undefined,
    realPath: string,
    identity: Identity,
    overwrite: boolean,
  ): SentLink | undefined {
    const link = row === undefined ? undefined : this.#links.idAt(row);
    if (row === undefined || !link) return undefined;
    const sent = this.#sentAs.get(row);
    if (sent !== undefined) {
      const file = this.#links.files.at(sent);
      return { input: file.display, output: file.outputDisplay, done: false };
    }
    if (overwrite) return undefined;
    const done = this.#doneAs(link.id, realPath, identity);
    return done === undefined ? undefined : { input: this.#show(done), output: '', done: true };
  }

  /** Another path whose done record is this very file, if one is. */
  #doneAs(id: string, realPath: string, identity: Identity): string | undefined {
    for (const record of this.#doneOfSize(identity.size)) {
      if (record.input === realPath || record.mtimeMs !== identity.mtimeMs) continue;
      if (fileIdOf(record.input) === id) return record.input;
    }
    return undefined;
  }

  #doneOfSize(size: number): readonly JournalRecord[] {
    if (!this.#doneBySize) {
      const sizes = this.#links.sizes();
      const bySize = new Map<number, JournalRecord[]>();
      for (const record of this.#latest.doneRecords()) {
        if (record.options !== this.#fingerprint || !sizes.has(record.size)) continue;
        const same = bySize.get(record.size);
        if (same) same.push(record);
        else bySize.set(record.size, [record]);
      }
      this.#doneBySize = bySize;
    }
    return this.#doneBySize.get(size) ?? [];
  }
}
