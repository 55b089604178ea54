import type { Job } from '../../api/schemas.js';
import { listedTimeMs } from '../../api/timestamps.js';

interface Entry {
  job: Job;
  /** Its time, read once: a sort that read it in each comparison spent most of a listing's time there. */
  ms: number;
  /** Its place in the listing: of two jobs of one time, the one listed first is shown first. */
  order: number;
}

/** Whether `a` is shown after `b`: older, or as old and listed later. A time that cannot be read is oldest. */
function after(a: Entry, b: Entry): boolean {
  return a.ms !== b.ms ? a.ms < b.ms : a.order > b.order;
}

/**
 * The newest jobs of a listing, as it is read: at most `limit` of them are held (a heap whose top is
 * the one that would go first), so a listing of 1,000,000 jobs costs the memory of the jobs shown.
 * Without a limit every job is held, to be sorted, with its time in a column of numbers beside it
 * (an entry object per job cost 1,000,000 jobs 100 MB more).
 */
export class NewestJobs {
  readonly #limit: number;
  readonly #heap: Entry[] = [];
  readonly #all: Job[] = [];
  readonly #times: number[] = [];
  #seen = 0;

  constructor(limit = Number.POSITIVE_INFINITY) {
    this.#limit = limit;
  }

  /** How many jobs the listing had. */
  get seen(): number {
    return this.#seen;
  }

  add(job: Job): void {
    const ms = listedTimeMs(job.created_at) ?? Number.NEGATIVE_INFINITY;
    if (this.#limit === Number.POSITIVE_INFINITY) {
      this.#all.push(job);
      this.#times.push(ms);
      this.#seen++;
      return;
    }
    const entry = { job, ms, order: this.#seen++ };
    const heap = this.#heap;
    if (heap.length < this.#limit) {
      heap.push(entry);
      this.#up(heap.length - 1);
    } else if (heap[0] && after(heap[0], entry)) {
      heap[0] = entry;
      this.#down(0);
    }
  }

  /** The jobs kept, newest first. */
  jobs(): Job[] {
    if (this.#limit === Number.POSITIVE_INFINITY) {
      const times = this.#times;
      const order = Uint32Array.from(times.keys());
      // Newest first; of one time (or none readable), as listed.
      order.sort((a, b) => (times[b] as number) - (times[a] as number) || a - b);
      return Array.from(order, (i) => this.#all[i] as Job);
    }
    return this.#heap.sort((a, b) => (after(a, b) ? 1 : after(b, a) ? -1 : 0)).map((entry) => entry.job);
  }

  #up(at: number): void {
    const heap = this.#heap;
    while (at > 0) {
      const parent = (at - 1) >> 1;
      if (!after(heap[at] as Entry, heap[parent] as Entry)) return;
      [heap[at], heap[parent]] = [heap[parent] as Entry, heap[at] as Entry];
      at = parent;
    }
  }

  #down(at: number): void {
    const heap = this.#heap;
    for (;;) {
      let first = at;
      for (const child of [2 * at + 1, 2 * at + 2]) {
        if (child < heap.length && after(heap[child] as Entry, heap[first] as Entry)) first = child;
      }
      if (first === at) return;
      [heap[at], heap[first]] = [heap[first] as Entry, heap[at] as Entry];
      at = first;
    }
  }
}
