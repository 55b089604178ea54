import { setImmediate as turn } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { type ItemSource, runPullPool } from '../../src/download/pull-pool.js';

/** A listing of `count` numbers handed in chunks of `chunk`, waiting for room after each as a listing does. */
function listing(
  count: number,
  chunk: number,
  seen: { added: number; signal?: AbortSignal },
): ItemSource<number> {
  return async (sink, signal) => {
    seen.signal = signal;
    for (let i = 0; i < count && !signal.aborted;) {
      for (const end = Math.min(count, i + chunk); i < end; i++, seen.added++) sink.add(i);
      await sink.drain();
    }
  };
}

describe('runPullPool', () => {
  it('holds a short queue whatever the number of items, and does every item once with at most `workers` at once', async () => {
    const seen = { added: 0 };
    const done = new Set<number>();
    let started = 0;
    let inFlight = 0;
    let mostInFlight = 0;
    let mostAhead = 0;
    await runPullPool({
      source: listing(20_000, 100, seen),
      workers: 4,
      stop: new AbortController().signal,
      work: async (item) => {
        started++;
        mostAhead = Math.max(mostAhead, seen.added - started);
        mostInFlight = Math.max(mostInFlight, ++inFlight);
        await turn();
        done.add(item);
        inFlight--;
      },
    });
    expect(done.size).toBe(20_000);
    expect(mostInFlight).toBe(4);
    // The queue's high water and one chunk: never the listing.
    expect(mostAhead).toBeLessThanOrEqual(256 + 100);
  });

  it('a stop takes no more items, lets those in flight finish, and tells the source', async () => {
    const seen: { added: number; signal?: AbortSignal } = { added: 0 };
    const stop = new AbortController();
    const finished: number[] = [];
    await runPullPool({
      source: listing(1_000, 10, seen),
      workers: 2,
      stop: stop.signal,
      work: async (item) => {
        if (item === 5) stop.abort();
        await turn();
        finished.push(item);
      },
    });
    // Item 5 and the one beside it in the other worker, at most, finish after the stop.
    finished.sort((a, b) => a - b);
    expect(finished.slice(0, 6)).toEqual([0, 1, 2, 3, 4, 5]);
    expect(finished.at(-1)).toBeLessThanOrEqual(6);
    expect(seen.signal?.aborted).toBe(true);
  });

  it('a stop hands every item given but never taken to `untaken`, after those in flight are done', async () => {
    const stop = new AbortController();
    const finished: number[] = [];
    const untaken: number[] = [];
    await runPullPool<number>({
      source: async (sink) => {
        for (let i = 0; i < 10; i++) sink.add(i);
      },
      workers: 2,
      stop: stop.signal,
      work: async (item) => {
        if (item === 1) stop.abort();
        await turn();
        finished.push(item);
      },
      untaken: async (item) => {
        expect([...finished].sort((a, b) => a - b)).toEqual([0, 1]);
        untaken.push(item);
      },
    });
    expect(untaken).toEqual([2, 3, 4, 5, 6, 7, 8, 9]);
  });

  it('a source that fails is thrown once the items it gave are done', async () => {
    const done: number[] = [];
    const failing: ItemSource<number> = async (sink) => {
      sink.add(1);
      sink.add(2);
      throw new Error('the listing broke');
    };
    await expect(
      runPullPool({
        source: failing,
        workers: 1,
        stop: new AbortController().signal,
        work: async (item) => {
          await turn();
          done.push(item);
        },
      }),
    ).rejects.toThrow('the listing broke');
    expect(done).toEqual([1, 2]);
  });
});
