import type { Job } from '../../api/schemas.js';
import { listedTime } from '../../api/timestamps.js';
import { LookUpWindow } from '../../redact/look-up-window.js';

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
 *
 * A time without a zone is the service's local time, at an offset nothing tells: such times are
 * compared as they read with each other, and with the others (a zone, an epoch number) as the
 * look-up of lost uploads places them (look-up-window.ts: as though the newest zone-less job was made
 * as it was received). Read as UTC, a service west of UTC had its newest jobs shown hours down the
 * list, under older ones of another form. The offset is known only once the listing is over, so the
 * zone-less jobs are kept apart (their own order does not depend on it) and the two kinds merged last.
 */
export class NewestJobs {
  readonly #limit: number;
  /** Jobs with a zone or an epoch time, and those whose time cannot be read. */
  readonly #zoned: Entry[] = [];
  readonly #zoneless: Entry[] = [];
  readonly #all: Job[] = [];
  readonly #times: number[] = [];
  /** Without a limit: where in #all the zone-less jobs are. */
  readonly #zonelessAt: number[] = [];
  readonly #window = new LookUpWindow();
  readonly #now: () => number;
  #seen = 0;

  /** `now`: this machine's clock, when each job is received (the zone-less times' offset). */
  constructor(limit = Number.POSITIVE_INFINITY, now: () => number = Date.now) {
    this.#limit = limit;
    this.#now = now;
  }

  /** How many jobs the listing had. */
  get seen(): number {
    return this.#seen;
  }

  add(job: Job): void {
    const time = listedTime(job.created_at);
    const ms = time?.ms ?? Number.NEGATIVE_INFINITY;
    const zoneless = time?.zoneless === true;
    if (zoneless) this.#window.see(time, this.#now());
    if (this.#limit === Number.POSITIVE_INFINITY) {
      if (zoneless) this.#zonelessAt.push(this.#all.length);
      this.#all.push(job);
      this.#times.push(ms);
      this.#seen++;
      return;
    }
    const heap = zoneless ? this.#zoneless : this.#zoned;
    const entry = { job, ms, order: this.#seen++ };
    if (heap.length < this.#limit) {
      heap.push(entry);
      up(heap, heap.length - 1);
    } else if (heap[0] && after(heap[0], entry)) {
      heap[0] = entry;
      down(heap, 0);
    }
  }

  /** The jobs kept, newest first. */
  jobs(): Job[] {
    if (this.#limit === Number.POSITIVE_INFINITY) {
      const times = this.#times;
      for (const i of this.#zonelessAt) times[i] = this.#placed(times[i] as number);
      const order = Uint32Array.from(times.keys());
      // Newest first; of one time (or none readable), as listed.
      order.sort((a, b) => (times[b] as number) - (times[a] as number) || a - b);
      return Array.from(order, (i) => this.#all[i] as Job);
    }
    const placed = this.#zoneless.map((entry) => ({ ...entry, ms: this.#placed(entry.ms) }));
    return [...this.#zoned, ...placed]
      .sort((a, b) => (after(a, b) ? 1 : after(b, a) ? -1 : 0))
      .slice(0, this.#limit)
      .map((entry) => entry.job);
  }

  /** A zone-less time as the others read, where the listing places it; else as UTC, as it reads. */
  #placed(ms: number): number {
    return this.#window.madeMs({ ms, zoneless: true }) ?? ms;
  }
}

function up(heap: Entry[], at: number): void {
  while (at > 0) {
    const parent = (at - 1) >> 1;
    if (!after(heap[at] as Entry, heap[parent] as Entry)) return;
    [heap[at], heap[parent]] = [heap[parent] as Entry, heap[at] as Entry];
    at = parent;
  }
}

function down(heap: Entry[], at: number): void {
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
