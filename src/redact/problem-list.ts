/**
 * The problem files a run lists at its end on a terminal, most telling first, in bounded memory. A
 * second Ctrl-C reports hundreds of files `pending … (not sent)` at once, before the few uploads it
 * cut short: listed as they came, those few were lost past the first 200.
 */
import type { Outcome } from './outcome.js';

/** At most this many problem files listed; the rest are counted. */
export const MAX_LISTED_PROBLEMS = 200;

/**
 * The order of the list, by what a person has to act on or wonder about: failed (sent, and it did
 * not work), rejected (the file itself is wrong), then pending files the service may hold (a job
 * not yet collected, or an upload cut short that the next run looks up first), then pending files
 * never sent (the batch stopped before them; the next run simply sends them).
 */
const ORDER = ['failed', 'rejected', 'pending at the service', 'pending, never sent'] as const;
type Kind = (typeof ORDER)[number];

/**
 * The engine says "never sent" only in its words: each such reason ends with `(not sent)` and
 * names no job (send.ts, stages.ts). A pending file that does not match stays in the earlier class,
 * so a change of wording shows too much rather than hiding an upload cut short.
 */
function kindOf(outcome: Outcome): Kind | undefined {
  if (outcome.status === 'failed' || outcome.status === 'rejected') return outcome.status;
  if (outcome.status !== 'pending') return undefined;
  const neverSent = outcome.jobId === undefined && (outcome.reason ?? '').endsWith('(not sent)');
  return neverSent ? 'pending, never sent' : 'pending at the service';
}

export class ProblemList {
  /** The first MAX_LISTED_PROBLEMS of each kind: enough for any mix, at most 4 × 200 held. */
  readonly #kept = new Map<Kind, Outcome[]>(ORDER.map((kind) => [kind, []]));
  #count = 0;

  /** Keeps `outcome` if it is a problem and there is room for its kind; counts it either way. */
  add(outcome: Outcome): void {
    const kind = kindOf(outcome);
    if (kind === undefined) return;
    this.#count++;
    const kept = this.#kept.get(kind);
    if (kept && kept.length < MAX_LISTED_PROBLEMS) kept.push(outcome);
  }

  /**
   * The problems to list, most telling first, and how many more there were. Within a kind, by input
   * path: checks and uploads finish in any order, and a list that changes between two runs of the
   * same batch reads as if something else had changed.
   */
  listed(): { shown: Outcome[]; unlisted: number } {
    const byInput = (a: Outcome, b: Outcome): number => (a.input < b.input ? -1 : a.input > b.input ? 1 : 0);
    const shown = ORDER.flatMap((kind) => [...(this.#kept.get(kind) ?? [])].sort(byInput)).slice(
      0,
      MAX_LISTED_PROBLEMS,
    );
    return { shown, unlisted: this.#count - shown.length };
  }
}
