/**
 * The times of the recent jobs the look-up let go for its cap (recent-jobs.ts), held as counts per
 * span of time rather than one by one: a listing of 1,000,000 recent jobs costs what one of 1,000
 * does. The zone-less window's start rises as the listing shows newer times, and a job let go under
 * a lower start may fall out of the final window: counted by its span, it is taken out of the count
 * then. Where the start falls inside a span, what of that span is before it is not known, and the
 * count is a range (`atLeast` to `total`).
 */

/** Spans held at most; past it each span is made twice as long (two neighbours merged). */
const MAX_SPANS = 4096;

export class LetGoTimes {
  /** A span's length, in ms: a second, doubled each time the spans are too many. */
  #spanMs = 1000;
  /** Span number (floor(ms / spanMs)) → jobs let go in it. */
  #counts = new Map<number, number>();
  #total = 0;

  /** Jobs let go and not known to be before the window. */
  get total(): number {
    return this.#total;
  }

  add(ms: number): void {
    const span = Math.floor(ms / this.#spanMs);
    this.#counts.set(span, (this.#counts.get(span) ?? 0) + 1);
    this.#total++;
    if (this.#counts.size > MAX_SPANS) this.#widen();
  }

  /** Takes out of the count the jobs let go whose span is wholly before `startMs`. */
  dropBefore(startMs: number): void {
    for (const [span, count] of this.#counts) {
      if ((span + 1) * this.#spanMs > startMs) continue;
      this.#counts.delete(span);
      this.#total -= count;
    }
  }

  /** Jobs let go whose span begins at `startMs` or later: surely in a window starting there. */
  atLeast(startMs: number): number {
    let sum = 0;
    for (const [span, count] of this.#counts) if (span * this.#spanMs >= startMs) sum += count;
    return sum;
  }

  #widen(): void {
    const counts = new Map<number, number>();
    // floor(floor(ms / w) / 2) is floor(ms / 2w), for any sign of ms.
    for (const [span, count] of this.#counts) {
      const wider = Math.floor(span / 2);
      counts.set(wider, (counts.get(wider) ?? 0) + count);
    }
    this.#counts = counts;
    this.#spanMs *= 2;
    if (this.#counts.size > MAX_SPANS) this.#widen();
  }
}
