/** One full collection between a large batch's set-up and its work. */
import { fullCollection } from '../full-gc.js';

/** Below this many inputs, listing, planning and reading the journals leave only a few MB behind. */
const SETTLE_HEAP_AT = 1000;

/**
 * Listing, planning and reading the journals of a large batch leave tens of MB of garbage, and V8
 * sizes its next collection from its early, generous estimate: a first run over 100,000 files
 * reached 160 to 236 MB (varying from run to run) before that collection came. One full collection
 * between planning and sending (or checking, in a dry run) lets V8 size the rest of the run from what is really kept (the plan
 * and the journal's records): 107 to 110 MB, at about 13 ms of CPU once. A dry run over 1,000,000
 * done files without it peaked at 168 MB, its journal's parsed lines still on the heap.
 */
export function settleHeap(inputs: number): void {
  if (inputs >= SETTLE_HEAP_AT) fullCollection();
}

/** Memory let go outside V8's heap between two collections while a large listing is drained. */
const COLLECT_EVERY_BYTES = 8 * 1024 * 1024;

/**
 * Counts memory let go outside V8's heap (a listing's chunks, see PackedStrings#drainSorted) and
 * collects once 8 MB of it waits: V8 frees such memory only when it collects, and it collects for
 * memory outside its heap only after about 64 MB more has been taken. Over 1,000,000 inputs the
 * listing is 21 MB, let go while the found files, 35 MB, are packed.
 */
export function collectingEvery(): (bytes: number) => void {
  let waiting = 0;
  return (bytes) => {
    waiting += bytes;
    if (waiting < COLLECT_EVERY_BYTES) return;
    waiting = 0;
    fullCollection();
  };
}
