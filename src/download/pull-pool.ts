/**
 * A fixed pool of workers that pull items as a source produces them (a listing read as a stream):
 * what is held is the items in flight and a short queue, whatever the number of items. A promise per
 * item queued up front (p-limit over a whole listing) held about 2 KB for each.
 */

/** Where a source puts its items. */
export interface ItemSink<T> {
  add(item: T): void;
  /** Awaited by the source where it can wait (after each chunk of a listing): resolves when there is room. */
  drain(): Promise<void>;
}

/** Puts every item into `sink`, then resolves; stops early, rejecting or not, once `signal` aborts. */
export type ItemSource<T> = (sink: ItemSink<T>, signal: AbortSignal) => Promise<unknown>;

export interface PullPoolOptions<T> {
  source: ItemSource<T>;
  workers: number;
  /** No item is taken once this aborts; the source is told (its signal) and not waited on further. */
  stop: AbortSignal;
  work: (item: T) => Promise<void>;
  /**
   * Told, once stopped and the items in flight are done, each item the source gave that was never
   * taken: not started, so that it can be reported so rather than not at all.
   */
  untaken?: (item: T) => Promise<void>;
  /** Told, as the pool starts, how to count the items being worked on at any moment. */
  countBusy?: (count: () => number) => void;
}

/** Items waiting, past which the source is held back: a few rounds of the largest pool (-c 64). */
const HIGH_WATER = 256;

/**
 * Runs `work` on every item of `source`, `workers` at a time, in the order they come. Resolves once
 * the source has ended and every item taken is done, or once `stop` has aborted, the items in
 * flight are done and those waiting are handed to `untaken`. A source that fails is thrown when the
 * items it gave before are done (unless stopped): they were listed, and are no less wanted.
 */
export async function runPullPool<T>(options: PullPoolOptions<T>): Promise<void> {
  const { stop } = options;
  const waiting: T[] = [];
  let ended = false;
  let failure: { error: unknown } | undefined;
  let idleWorkers: Array<() => void> = [];
  let heldSource: (() => void) | undefined;
  let busy = 0;
  options.countBusy?.(() => busy);

  const wakeWorkers = () => {
    const idle = idleWorkers;
    idleWorkers = [];
    for (const wake of idle) wake();
  };
  const wakeSource = () => {
    const held = heldSource;
    heldSource = undefined;
    held?.();
  };
  const onStop = () => {
    wakeWorkers();
    wakeSource();
  };
  stop.addEventListener('abort', onStop, { once: true });

  const sink: ItemSink<T> = {
    add(item) {
      waiting.push(item);
      if (idleWorkers.length > 0) idleWorkers.shift()?.();
    },
    drain: () =>
      waiting.length < HIGH_WATER || stop.aborted
        ? Promise.resolve()
        : new Promise<void>((resolve) => {
            heldSource = resolve;
          }),
  };

  const produced = options.source(sink, stop).then(
    () => {
      ended = true;
    },
    (error: unknown) => {
      ended = true;
      failure = { error };
    },
  );
  void produced.finally(wakeWorkers);

  const worker = async (): Promise<void> => {
    for (;;) {
      if (stop.aborted) return;
      const item = waiting.shift();
      if (item === undefined) {
        if (ended) return;
        await new Promise<void>((resolve) => idleWorkers.push(resolve));
        continue;
      }
      if (waiting.length < HIGH_WATER / 2) wakeSource();
      busy++;
      try {
        await options.work(item);
      } finally {
        busy--;
      }
    }
  };

  try {
    await Promise.all(Array.from({ length: Math.max(1, options.workers) }, worker));
    if (stop.aborted) for (const item of waiting.splice(0)) await options.untaken?.(item);
    // Stopped, the source was told through its signal; its end (an abort) is no failure of the run.
    if (!stop.aborted) await produced;
  } finally {
    stop.removeEventListener('abort', onStop);
  }
  if (failure && !stop.aborted) throw failure.error;
}
