/**
 * A first interrupt (the `stop` signal) ends the long phases of a run between two chunks of their
 * work, rejecting with its reason: the journals' read, both passes of a compaction (the journal left
 * as it was, the copy removed), the plan, and the sort of a listing. Over 1,000,000 inputs each takes
 * seconds, in which a Ctrl-C was obeyed only at the phase's end. The e2e side, through the built
 * binary: test/e2e/redact-interrupt-long-phases.test.ts.
 */
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { compactJournal } from '../../src/redact/compact.js';
import { journalPath, optionsFingerprint } from '../../src/redact/journal.js';
import { readJournalFiles } from '../../src/redact/journal-read.js';
import { expandInputs } from '../../src/redact/inputs.js';
import { buildPlan } from '../../src/redact/plan.js';
import { sortInTurns } from '../../src/redact/sort-in-turns.js';
import { tempDirPerTest, touchFiles } from '../helpers/cli.js';

const dir = tempDirPerTest('vredact-interrupted-phases-');
const base = { v: 1, size: 100, mtimeMs: 1, options: optionsFingerprint({}) };
const at = (n: number) => new Date(Date.UTC(2026, 0, 1) + n * 1000).toISOString();

/** A journal of `count` lines of one input, more than compaction lets stand; `last` after them. */
async function longJournal(count: number, last?: string): Promise<string> {
  const path = journalPath(dir.path);
  await mkdir(join(dir.path, '.vredact'), { recursive: true });
  const lines = Array.from({ length: count }, (_, n) =>
    JSON.stringify({
      ...base,
      at: at(n),
      event: 'failed',
      input: '/a.wav',
      reason: 'the service answered 500',
    }),
  );
  await writeFile(path, `${[...lines, ...(last ? [last] : [])].join('\n')}\n`);
  return path;
}

describe('a first interrupt ends a long phase between two chunks', () => {
  it('reading the journals: the lines after the chunk under way are not read', async () => {
    // Several reads long (256 KiB each), its last line of a later format: a read that reaches it stops on it.
    const path = await longJournal(
      5_000,
      JSON.stringify({ v: 2, at: at(9_999), event: 'done', input: '/a.wav' }),
    );
    const stop = new AbortController();
    const interrupted = new Error('interrupted');
    let read = 0;
    const reading = readJournalFiles([path], undefined, {
      onRecord: () => {
        if (++read === 10) stop.abort(interrupted);
      },
      stop: stop.signal,
    });
    await expect(reading).rejects.toBe(interrupted);
    expect(read).toBeLessThan(5_000);
  });

  it('compacting, before its copy: the journal as it was, no temporary file', async () => {
    const path = await longJournal(1_100);
    const before = await readFile(path);
    const stop = new AbortController();
    stop.abort(new Error('interrupted'));
    await expect(compactJournal(path, { stop: stop.signal })).rejects.toThrow('interrupted');
    expect((await readFile(path)).equals(before)).toBe(true);
    expect(await readdir(join(dir.path, '.vredact'))).toEqual(['journal.jsonl']);
  });

  it('compacting, as it copies: the journal as it was, its partial copy removed', async () => {
    const path = await longJournal(20_000);
    const before = await readFile(path);
    const stop = new AbortController();
    // The interrupt comes once the copy's temporary file is made, as its first lines are copied.
    const pause = async () => {
      expect((await readdir(join(dir.path, '.vredact'))).length).toBe(2);
      stop.abort(new Error('interrupted'));
    };
    await expect(compactJournal(path, { stop: stop.signal, pause })).rejects.toThrow('interrupted');
    expect((await readFile(path)).equals(before)).toBe(true);
    expect(await readdir(join(dir.path, '.vredact'))).toEqual(['journal.jsonl']);
  });
});

describe('the plan', () => {
  it('ends once stopped, before it maps an input', async () => {
    await touchFiles(join(dir.path, 'in'), 'a.wav', 'b.wav');
    const expanded = await expandInputs({ cwd: dir.path, args: ['in'] });
    const stop = new AbortController();
    stop.abort(new Error('interrupted'));
    const planning = buildPlan(expanded, {
      cwd: dir.path,
      outDir: 'out',
      ignoresCase: false,
      stop: stop.signal,
    });
    await expect(planning).rejects.toThrow('interrupted');
  });
});

describe('sortInTurns', () => {
  /** A pseudo-random permutation with repeats, nearly in order in places, as listings come. */
  function items(count: number): { values: Uint32Array; keys: number[] } {
    const keys = Array.from({ length: count }, (_, i) => (i % 7 === 0 ? i : (i * 2_654_435_761) % 1_000));
    return { values: Uint32Array.from(keys.keys()), keys };
  }

  it('sorts as the engine does, stably, across many runs', async () => {
    for (const count of [0, 1, 4_096, 4_097, 50_000]) {
      const { values, keys } = items(count);
      const compare = (a: number, b: number) => (keys[a] as number) - (keys[b] as number);
      const expected = Uint32Array.from(values).sort(compare);
      expect(Array.from(await sortInTurns(values, compare))).toEqual(Array.from(expected));
    }
  });

  it('ends at a turn once stopped', async () => {
    const { values, keys } = items(50_000);
    const stop = new AbortController();
    const interrupted = new Error('interrupted');
    let compared = 0;
    const compare = (a: number, b: number) => {
      if (++compared === 1_000) stop.abort(interrupted);
      // 10 µs a comparison: the whole sort would take seconds, and a turn falls due long before.
      const until = performance.now() + 0.01;
      while (performance.now() < until);
      return (keys[a] as number) - (keys[b] as number);
    };
    await expect(sortInTurns(values, compare, stop.signal)).rejects.toBe(interrupted);
    expect(compared).toBeLessThan(100_000);
  });

  it('ends within a merge, not after it: the last merge of a big listing is one long stretch', async () => {
    // Two halves, each in order, interleaved: every merge within a half is a copy, the last one
    // compares every item (32,767 comparisons: 0.33 s at 10 µs each).
    const half = 16_384;
    const keys = Array.from({ length: 2 * half }, (_, i) => (i < half ? 2 * i : 2 * (i - half) + 1));
    const byKey = (a: number, b: number) => (keys[a] as number) - (keys[b] as number);
    const sorted = await sortInTurns(Uint32Array.from(keys.keys()), byKey);
    expect(Array.from(sorted, (item) => keys[item])).toEqual(Array.from({ length: 2 * half }, (_, i) => i));

    const stop = new AbortController();
    let afterStop = 0;
    const slowly = (a: number, b: number) => {
      if (stop.signal.aborted) afterStop++;
      // Items of the two halves meet only in the last merge: the interrupt comes as it starts.
      else if (byKey(a, b) % 2 !== 0) stop.abort(new Error('interrupted'));
      const until = performance.now() + 0.01;
      while (performance.now() < until);
      return byKey(a, b);
    };
    await expect(sortInTurns(Uint32Array.from(keys.keys()), slowly, stop.signal)).rejects.toThrow(
      'interrupted',
    );
    // At most one slice of the merge (4,096 items, 41 ms) goes on after the interrupt, not the rest of it.
    expect(afterStop).toBeLessThanOrEqual(4_096);
  }, 30_000);
});
