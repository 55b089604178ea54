/**
 * Whether outputs exist, for the journal's decisions (a done input whose output went missing is sent
 * again): from one listing per output folder rather than a system call per file, since a re-run over
 * 100,000 done files asks for every one of them.
 *
 * Only the folder being asked about is held, and each folder is listed once per run: the plan asks
 * folder by folder, and an output asked for after its folder was left, in a folder past the cap, or
 * one that is a link (its target may be gone), is looked at alone.
 */
import { type Dir, existsSync, lstatSync, opendirSync } from 'node:fs';
import { dirname, sep } from 'node:path';
import type { PlanEntry } from './plan.js';

/** Names held for one folder at most: a larger folder is asked file by file. */
export const MAX_LISTED = 50_000;

/** A folder's entries by kind: a link's target is looked at when asked, a folder is in an output's way. */
interface Listing {
  names: Set<string>;
  links: Set<string>;
  folders: Set<string>;
}

/** Whether a folder (not a link to one) is at `path`; false when nothing can be there (ENOTDIR…). */
export function isFolderAt(path: string): boolean {
  try {
    return lstatSync(path, { throwIfNoEntry: false })?.isDirectory() ?? false;
  } catch {
    return false;
  }
}

const emptyListing = (): Listing => ({ names: new Set(), links: new Set(), folders: new Set() });

export class OutputPresence {
  #dir: string | undefined;
  /** The current folder's entries; undefined when it could not be listed whole. */
  #listing: Listing | undefined;
  readonly #listed = new Set<string>();

  constructor(private readonly maxListed = MAX_LISTED) {}

  exists(entry: PlanEntry): boolean {
    const output = entry.output;
    const listing = this.#listingFor(entry);
    if (!listing) return existsSync(output);
    const name = this.#nameIn(entry);
    if (listing.names.has(name) || listing.folders.has(name)) return true;
    return listing.links.has(name) && existsSync(output);
  }

  /**
   * Whether a folder (not a link to one) stands where the output goes: the rename that publishes an
   * output cannot replace it, so the input must not be sent.
   */
  isFolder(entry: PlanEntry): boolean {
    const listing = this.#listingFor(entry);
    if (listing) return listing.folders.has(this.#nameIn(entry));
    return isFolderAt(entry.output);
  }

  #listingFor(entry: PlanEntry): Listing | undefined {
    const dir = entry.outputDir ?? dirname(entry.output);
    if (dir !== this.#dir) this.#enter(dir);
    return this.#listing;
  }

  #nameIn(entry: PlanEntry): string {
    const dir = this.#dir as string;
    return entry.output.slice(dir.endsWith(sep) ? dir.length : dir.length + 1);
  }

  #enter(dir: string): void {
    this.#dir = dir;
    this.#listing = undefined;
    if (this.#listed.has(dir)) return;
    this.#listed.add(dir);
    this.#listing = this.#list(dir);
  }

  #list(dir: string): Listing | undefined {
    let handle: Dir;
    try {
      handle = opendirSync(dir);
    } catch (error) {
      // No folder yet: none of its outputs exists.
      return (error as NodeJS.ErrnoException).code === 'ENOENT' ? emptyListing() : undefined;
    }
    const listing = emptyListing();
    const { names, links, folders } = listing;
    try {
      for (let entry = handle.readSync(); entry !== null; entry = handle.readSync()) {
        if (names.size + links.size + folders.size >= this.maxListed) return undefined;
        (entry.isSymbolicLink() ? links : entry.isDirectory() ? folders : names).add(entry.name);
      }
      return listing;
    } catch {
      return undefined;
    } finally {
      handle.closeSync();
    }
  }
}
