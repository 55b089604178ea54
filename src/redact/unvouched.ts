/**
 * Inputs with no record of their own whose output place is taken: "skipped, vredact cannot vouch for
 * that output" (the user's own file, a crashed run's). When the journals give that output to another
 * input (a named `x/a.wav` redacted last night to `<out>/a.wav`, and tonight a named `y/a.wav`), the
 * input would never be redacted, each run skipping it as done with exit 0: it is rejected instead, as
 * two inputs on one output are within a run. Skips of this kind are held back as a bit per row of the
 * plan (held-rows.ts), and settled once every input has been decided: the journals are read again for
 * their outputs, in batches, so memory is bounded whatever their number (none, on a usual night).
 */
import { displayText } from '../output/sanitize.js';
import { skipReason } from './decide.js';
import { HeldRows } from './held-rows.js';
import type { JournalState } from './journal-read.js';
import { outputsClaimed, type OutputClaim } from './journal-search.js';
import type { PlanEntries, PlanEntry } from './plan.js';
import type { Recorder } from './record.js';

/** Outputs looked for in one read of the journals. */
const BATCH = 50_000;

export function claimedReason(entry: PlanEntry, claim: OutputClaim): string {
  return `its output ${entry.outputDisplay} is already another input's (${displayText(claim.input)}, ${claim.event} ${claim.at.slice(0, 10)}): two inputs on one output; rename one, or choose another output folder (-o)`;
}

export class UnvouchedOutputs {
  readonly #rows = new HeldRows();
  /** Named inputs without a plan row (few). */
  readonly #others: PlanEntry[] = [];

  get size(): number {
    return this.#rows.size + this.#others.length;
  }

  defer(entry: PlanEntry): void {
    if (entry.row === undefined) this.#others.push(entry);
    else this.#rows.hold(entry.row);
  }

  /**
   * Calls `settle` for each held input, with the claim of another input on its output if the journals
   * hold one. Batches of inputs are held in turn, each batch costing one read of the journals. `end`
   * (a second interrupt) settles no more: the inputs left are undecided, for the next run.
   */
  async settle(
    entries: PlanEntries,
    journals: readonly string[],
    settle: (entry: PlanEntry, claim: OutputClaim | undefined) => Promise<void>,
    end?: AbortSignal,
  ): Promise<void> {
    if (this.size === 0) return;
    let batch: PlanEntry[] = [...this.#others];
    const flush = async () => {
      if (end?.aborted) return;
      const asking = new Map(batch.map((entry) => [entry.outputRel, entry.realPath]));
      const claims = await outputsClaimed(journals, asking);
      for (const entry of batch) await settle(entry, claims.get(entry.outputRel));
      batch = [];
    };
    for await (const entry of this.#rows.entries(entries, end)) {
      batch.push(entry);
      if (batch.length >= BATCH) await flush();
    }
    await flush();
  }
}

/** Records each held input: rejected when another input's line claims its output, else skipped. */
export async function settleUnvouched(
  unvouched: UnvouchedOutputs,
  entries: PlanEntries,
  journal: JournalState,
  recorder: Pick<Recorder, 'skipped' | 'rejected'>,
  end?: AbortSignal,
): Promise<void> {
  const skipped = skipReason({ action: 'skip', why: 'output-exists' });
  await unvouched.settle(
    entries,
    journal.files.map((file) => file.path),
    async (entry, claim) => {
      if (claim) await recorder.rejected(entry, claimedReason(entry, claim));
      else recorder.skipped(entry, skipped);
    },
    end,
  );
}
