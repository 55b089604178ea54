/**
 * Whether outputs exist, for the journal's decisions (a done input whose output went missing is sent
 * again): from one listing per output folder rather than a system call per file, since a re-run over
 * 100,000 done files asks for every one of them.
 *
 * Only the folder being asked about is held, and each folder is listed once per run: the plan asks
 * folder by folder, and an output asked for after its folder was left, in a folder past the cap, or
 * one that is a link (its target may be gone), is looked at alone.
 */
import { type Dir, existsSync, opendirSync } from 'node:fs';
import { dirname, sep } from 'node:path';
import type { PlanEntry } from './plan.js';

/** Names held for one folder at most: a larger folder is asked file by file. */
export const MAX_LISTED = 50_000;

export class OutputPresence {
  #dir: string | undefined;
  /** The current folder's entries, links apart; undefined when it could not be listed whole. */
  #listing: { names: Set<string>; links: Set<string> } | undefined;
  readonly #listed = new Set<string>();

  constructor(private readonly maxListed = MAX_LISTED) {}

  exists(entry: PlanEntry): boolean {
    const output = entry.output;
    const dir = entry.outputDir ?? dirname(output);
    if (dir !== this.#dir) this.#enter(dir);
    const listing = this.#listing;
    if (!listing) return existsSync(output);
    const name = output.slice(dir.endsWith(sep) ? dir.length : dir.length + 1);
    if (listing.names.has(name)) return true;
    return listing.links.has(name) && existsSync(output);
  }

  #enter(dir: string): void {
    this.#dir = dir;
    this.#listing = undefined;
    if (this.#listed.has(dir)) return;
    this.#listed.add(dir);
    this.#listing = this.#list(dir);
  }

  #list(dir: string): { names: Set<string>; links: Set<string> } | undefined {
    let handle: Dir;
    try {
      handle = opendirSync(dir);
    } catch (error) {
      // No folder yet: none of its outputs exists.
      return (error as NodeJS.ErrnoException).code === 'ENOENT'
        ? { names: new Set(), links: new Set() }
        : undefined;
    }
    const names = new Set<string>();
    const links = new Set<string>();
    try {
      for (let entry = handle.readSync(); entry !== null; entry = handle.readSync()) {
        if (names.size + links.size >= this.maxListed) return undefined;
        (entry.isSymbolicLink() ? links : names).add(entry.name);
      }
      return { names, links };
    } catch {
      return undefined;
    } finally {
      handle.closeSync();
    }
  }
}
