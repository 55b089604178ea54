/**
 * The found files of a batch, packed: a run holds every input from its listing to its end, and as
 * objects (a FoundFile, its name, its boxed modification time, an array slot) they cost about 150
 * bytes an input on V8's heap, which V8 then lets grow to twice that before it collects. Here an input
 * is a row of typed columns outside the heap: its folder's number, its name as UTF-8, its size and
 * modification time, about 36 bytes. A FoundFile is made from its row when it is asked for, so only
 * the files in flight exist as objects. The few links (symbolic, and files of more than one hard link)
 * and the plan's refusals are kept by row.
 */
import { FoundFile, type HardLinkId, type InputFolder } from './found-file.js';
import { Float64Column, Uint32Column } from './chunked-columns.js';
import { Numbering, PackedStrings } from './packed-strings.js';

export class FoundFiles implements Iterable<FoundFile> {
  readonly #folders = new Numbering<InputFolder>();
  #length = 0;
  readonly #folder = new Uint32Column();
  readonly #size = new Float64Column();
  readonly #mtimeMs = new Float64Column();
  readonly #names = new PackedStrings();
  readonly #linkedTo = new Map<number, string>();
  readonly #rejected = new Map<number, string>();
  readonly #hardLinks = new Map<number, HardLinkId>();

  get length(): number {
    return this.#length;
  }

  /** Every folder that holds a found file, in the order first found. */
  get folders(): readonly InputFolder[] {
    return this.#folders.values;
  }

  /** Adds a found file; returns its row. */
  push(file: FoundFile): number {
    const row = this.#length;
    this.#names.push(file.name);
    this.#folder.set(row, this.#folders.numberOf(file.folder));
    this.#size.set(row, file.seenSize);
    this.#mtimeMs.set(row, file.seenMtimeMs);
    if (file.linkedTo !== undefined) this.#linkedTo.set(row, file.linkedTo);
    if (file.rejected !== undefined) this.#rejected.set(row, file.rejected);
    if (file.hardLink !== undefined) this.#hardLinks.set(row, file.hardLink);
    this.#length = row + 1;
    return row;
  }

  folderAt(row: number): InputFolder {
    return this.#folders.valueOf(this.#folder.get(row));
  }

  nameAt(row: number): string {
    return this.#names.at(row);
  }

  /** Whether the row's real path (FoundFile#realPath) is `path`, compared in place. */
  hasRealPath(row: number, path: string): boolean {
    const linkedTo = this.#linkedTo.get(row);
    if (linkedTo !== undefined) return linkedTo === path;
    const prefix = this.folderAt(row).realPrefix;
    return path.startsWith(prefix) && this.#names.matches(row, path, prefix.length);
  }

  /** The row's real path, as FoundFile#realPath gives it. */
  realPathAt(row: number): string {
    return this.#linkedTo.get(row) ?? this.folderAt(row).realPrefix + this.nameAt(row);
  }

  seenSizeAt(row: number): number {
    return this.#size.get(row);
  }

  seenMtimeMsAt(row: number): number {
    return this.#mtimeMs.get(row);
  }

  /** The found file of a row, made anew (with the plan's refusal, if any). */
  at(row: number): FoundFile {
    const file = new FoundFile(
      this.folderAt(row),
      this.nameAt(row),
      this.#linkedTo.get(row),
      this.#size.get(row),
      this.#mtimeMs.get(row),
      this.#hardLinks.get(row),
    );
    file.row = row;
    const rejected = this.#rejected.get(row);
    if (rejected !== undefined) file.rejected = rejected;
    return file;
  }

  hardLinkAt(row: number): HardLinkId | undefined {
    return this.#hardLinks.get(row);
  }

  /** The rows of files with more than one hard link, in row order, with their ids. */
  hardLinked(): IterableIterator<[number, HardLinkId]> {
    return this.#hardLinks.entries();
  }

  reject(row: number, reason: string): void {
    this.#rejected.set(row, reason);
  }

  rejectedAt(row: number): string | undefined {
    return this.#rejected.get(row);
  }

  *[Symbol.iterator](): Iterator<FoundFile> {
    for (let row = 0; row < this.#length; row++) yield this.at(row);
  }
}
