/**
 * Rows of the plan held back for a pass once every input has been decided (outputs the journal cannot
 * vouch for, jobs met while every waiter was busy): a bit per row, and the last row held. The pass
 * walks the plan only as far as that row, giving turns of the event loop on the way, and ends at a
 * second interrupt. It walked every row without a turn: after a first interrupt that ended the
 * deciding near the start of 1,000,000 inputs, about 0.2 s to settle the few held.
 */
import { Uint8Column } from './chunked-columns.js';
import { giveTurn, turnDue } from './event-turn.js';
import type { PlanEntries, PlanEntry } from './plan.js';

/** Rows walked between two looks at the clock (performance.now() for each of 1,000,000 rows shows). */
const ROWS_PER_LOOK = 1024;

export class HeldRows {
  readonly #rows = new Uint8Column();
  #last = -1;
  #count = 0;

  get size(): number {
    return this.#count;
  }

  hold(row: number): void {
    if (this.#rows.get(row) === 1) return;
    this.#rows.set(row, 1);
    this.#count++;
    if (row > this.#last) this.#last = row;
  }

  /**
   * The held entries in plan order (its rows come in order, after the entries that have none). Ends
   * after the last row held, or at `end`: the entries not given by then are left without an outcome.
   */
  async *entries(plan: PlanEntries, end?: AbortSignal): AsyncGenerator<PlanEntry> {
    if (this.#count === 0) return;
    let walked = 0;
    for (const entry of plan) {
      if (++walked % ROWS_PER_LOOK === 0 && turnDue()) await giveTurn();
      if (end?.aborted) return;
      if (entry.row === undefined) continue;
      if (entry.row > this.#last) return;
      if (this.#rows.get(entry.row) === 1) yield entry;
    }
  }
}
