/**
 * What joins the stages: a bounded queue (a producer waits while it is full, so memory holds at most
 * `capacity` items between two stages, whatever the number of files) and a fixed pool of workers
 * draining an async iterable (no promise or closure per file made up front).
 */
import { giveTurn, turnDue } from './event-turn.js';

export class BoundedQueue<T> implements AsyncIterable<T> {
  readonly #items: T[] = [];
  #head = 0;
  #closed = false;
  /** Consumers waiting for an item, and producers waiting for room. */
  #takers: Array<(result: IteratorResult<T>) => void> = [];
  #givers: Array<() => void> = [];

  constructor(readonly capacity: number) {}

  get size(): number {
    return this.#items.length - this.#head;
  }

  /** Adds an item, waiting while the queue is full. */
  async push(item: T): Promise<void> {
    if (this.#closed) throw new Error('push after close');
    const taker = this.#takers.shift();
    if (taker) {
      taker({ value: item, done: false });
      return;
    }
    while (this.size >= this.capacity) await new Promise<void>((resolve) => this.#givers.push(resolve));
    this.#items.push(item);
  }

  /** No more items: consumers finish once the queue is drained. */
  close(): void {
    this.#closed = true;
    for (const taker of this.#takers.splice(0)) taker({ value: undefined, done: true });
  }

  #take(): Promise<IteratorResult<T>> {
    if (this.size > 0) {
      const value = this.#items[this.#head] as T;
      this.#items[this.#head] = undefined as T;
      this.#head++;
      if (this.#head > 1024 && this.#head * 2 > this.#items.length) {
        this.#items.splice(0, this.#head);
        this.#head = 0;
      }
      this.#givers.shift()?.();
      // Items that are already there are handed over on microtasks alone: see event-turn.ts.
      if (turnDue()) return giveTurn().then(() => ({ value, done: false }));
      return Promise.resolve({ value, done: false });
    }
    if (this.#closed) return Promise.resolve({ value: undefined, done: true });
    return new Promise((resolve) => this.#takers.push(resolve));
  }

  [Symbol.asyncIterator](): AsyncIterator<T> {
    return { next: () => this.#take() };
  }
}

/**
 * Runs `work` on every item of `source` with at most `workers` at once. Items are pulled only as a
 * worker frees up. An error thrown by `work` is thrown once every item has been through (the source
 * is always drained, so a stage before this one is never left waiting for room).
 */
export async function forEachConcurrently<T>(
  source: AsyncIterable<T> | Iterable<T>,
  workers: number,
  work: (item: T) => Promise<void>,
): Promise<void> {
  const iterator =
    Symbol.asyncIterator in source
      ? (source as AsyncIterable<T>)[Symbol.asyncIterator]()
      : (source as Iterable<T>)[Symbol.iterator]();
  let failure: { error: unknown } | undefined;
  // Pulls are serialised: an async generator allows only one next() at a time anyway.
  let pulling: Promise<unknown> = Promise.resolve();
  const pull = (): Promise<IteratorResult<T>> => {
    const next = pulling.then(() => iterator.next());
    pulling = next.catch(() => {});
    return next;
  };
  const worker = async () => {
    for (;;) {
      const next = await pull();
      if (next.done) return;
      try {
        await work(next.value);
      } catch (error) {
        failure ??= { error };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, workers) }, worker));
  if (failure) throw failure.error;
}
