/**
 * The plan's found files as the journal's reader knows them (KnownInputs): a run's record table takes
 * their rows, so neither their paths nor an index of them is held twice. The index by real path,
 * which discovery built to drop duplicates, is needed only while the journals are read: over
 * 1,000,000 inputs it is 16 MB, let go before the first upload (the run asks by row from then on).
 */
import type { FoundFiles } from './found-files.js';
import type { KeyIndex } from './key-index.js';
import type { KnownInputs } from './record-table.js';

export class PlannedInputs implements KnownInputs {
  #byRealPath: KeyIndex | undefined;

  constructor(
    private readonly files: FoundFiles,
    byRealPath: KeyIndex,
  ) {
    this.#byRealPath = byRealPath;
  }

  get length(): number {
    return this.files.length;
  }

  rowOf(input: string): number {
    // A look-up after the index is gone would find no record for a known input: a wrong decision, so an error.
    if (!this.#byRealPath) throw new Error('the inputs are no longer indexed by path: ask by row');
    return this.#byRealPath.find(input);
  }

  inputAt(row: number): string {
    return this.files.realPathAt(row);
  }

  seenSizeAt(row: number): number {
    return this.files.seenSizeAt(row);
  }

  seenMtimeMsAt(row: number): number {
    return this.files.seenMtimeMsAt(row);
  }

  /** Lets the index by real path go: the journals have been read. */
  release(): void {
    this.#byRealPath = undefined;
  }
}
