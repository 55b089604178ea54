/**
 * The walk of the plan that settles outputs the journal cannot vouch for, once every input has been
 * decided. It went over every row of the plan: after a first interrupt that ended the deciding near
 * the start of 1,000,000 inputs, about 0.2 s without a turn of the event loop to settle the few held.
 * Now it ends after the last row held, and a second interrupt ends it there and then.
 */
import { describe, expect, it } from 'vitest';
import type { PlanEntries, PlanEntry } from '../../src/redact/plan.js';
import { UnvouchedOutputs } from '../../src/redact/unvouched.js';

/** A plan of `length` rows that counts the entries it gives. */
function countingPlan(length: number): PlanEntries & { given: number } {
  const plan = {
    length,
    given: 0,
    *[Symbol.iterator](): Iterator<PlanEntry> {
      for (let row = 0; row < length; row++) {
        plan.given++;
        yield { row, outputRel: `o${row}.wav`, realPath: `/in/${row}.wav` } as unknown as PlanEntry;
      }
    },
  };
  return plan;
}

describe('UnvouchedOutputs.settle', () => {
  it('settles the held inputs in plan order and walks no further than the last held', async () => {
    const plan = countingPlan(100_000);
    const held = new UnvouchedOutputs();
    for (const row of [5, 2]) held.defer({ row } as unknown as PlanEntry);
    const settled: number[] = [];
    await held.settle(plan, [], async (entry) => {
      settled.push(entry.row ?? -1);
    });
    expect(settled).toEqual([2, 5]);
    // Rows 0 to 5, and the one after the last held that tells the walk to end.
    expect(plan.given).toBeLessThanOrEqual(7);
  });

  it('settles none after a second interrupt: they are left undecided for the next run', async () => {
    const plan = countingPlan(1_000);
    const held = new UnvouchedOutputs();
    held.defer({ row: 3 } as unknown as PlanEntry);
    const end = new AbortController();
    end.abort();
    const settled: number[] = [];
    await held.settle(
      plan,
      [],
      async (entry) => {
        settled.push(entry.row ?? -1);
      },
      end.signal,
    );
    expect(settled).toEqual([]);
  });
});
