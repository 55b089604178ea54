/**
 * The names one download has looked at, so that a name given twice is one file and two names that
 * would be saved under one name (`x/a.wav` and `y/a.wav`; `Take.wav` and `take.wav` where the folder
 * ignores letter case) are told apart. The one thing `download` keeps for each file: a map entry and
 * the name, about 100 bytes (measured in README, "Support commands at scale").
 */
import { foldLetterCase } from '../fs/letter-case.js';

/** A key no saved name can have: a base name holds no `/`. */
const unsaved = (fileName: string): string => `/${fileName}`;

export type Claim =
  | { kind: 'new' }
  /** The same name again: fetched and reported once already. */
  | { kind: 'repeat' }
  /** Another name that is saved under the same name (`other`, as the service named it). */
  | { kind: 'taken'; other: string };

export class NameClaims {
  readonly #ignoresCase: boolean;
  // The saved name (folded where the folder ignores case) → the service's name of the file saved
  // under it; `/<service's name>` → itself, for a name that settled without being saved under one.
  readonly #names = new Map<string, string>();

  constructor(ignoresCase: boolean) {
    this.#ignoresCase = ignoresCase;
  }

  /** Claims the saved name `local` for `fileName`, unless it is a repeat or another name has it. */
  claim(fileName: string, local: string): Claim {
    if (this.#names.has(unsaved(fileName))) return { kind: 'repeat' };
    const key = this.#ignoresCase ? foldLetterCase(local) : local;
    const other = this.#names.get(key);
    if (other === fileName) return { kind: 'repeat' };
    if (other !== undefined) {
      this.#names.set(unsaved(fileName), fileName);
      return { kind: 'taken', other };
    }
    // The same string twice when the service's name is the saved one: one string held, not two.
    this.#names.set(key, key === fileName ? key : fileName);
    return { kind: 'new' };
  }

  /** Records a name that settles without being saved under a name (none usable, too long): once. */
  settleUnsaved(fileName: string): 'new' | 'repeat' {
    const key = unsaved(fileName);
    if (this.#names.has(key)) return 'repeat';
    this.#names.set(key, fileName);
    return 'new';
  }
}
