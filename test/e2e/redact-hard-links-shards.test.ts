/**
 * Hard links and shards: every link of a file falls in one shard (its least path's), so two shards
 * started at once over an archive of linked files (rsnapshot, `rsync --link-dest`) send each file
 * once in all, and a file that gains a second link between two runs (moving to the shard of the new,
 * lesser path) is not sent again. The built binary against the sandbox. Build first: `npm run build`.
 */
import { link } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { shardOf } from '../../src/redact/plan.js';
import { type E2E, jsonLines, listFiles, setup } from '../helpers/e2e.js';

type Line = Record<string, unknown>;

/** Both shards of two, started at once over `in`, each exiting 0: their lines, by input. */
async function bothShards(t: E2E): Promise<Array<Map<string, Line>>> {
  const runs = await Promise.all(
    ['1/2', '2/2'].map((shard) => t.redact(['in', '-o', 'out', '--json', '--shard', shard])),
  );
  const lines = runs.map(
    (run) =>
      new Map(
        jsonLines(run.stdout)
          .filter((line) => typeof line.input === 'string')
          .map((line) => [line.input as string, line]),
      ),
  );
  for (const run of runs) expect(run.exitCode, String(run.stderr)).toBe(0);
  return lines;
}

/** A name in `in/` whose path falls in `shard` of two (0-based). */
function nameInShard(stem: string, shard: number): string {
  for (let i = 0; ; i++) if (shardOf(`${stem}-${i}.wav`, 2) === shard) return `${stem}-${i}.wav`;
}

describe('vredact redact --shard: hard links', () => {
  it('two shards at once over files linked under two paths each, in two shards by path, send each file once', async () => {
    const t = await setup();
    try {
      const pairs: Array<[string, string]> = [];
      for (let i = 0; i < 4; i++) {
        const first = nameInShard(`a${i}`, i % 2);
        const second = nameInShard(`b${i}`, 1 - (i % 2));
        const path = await t.fixture('speech-8k-ulaw.wav', `in/${first}`);
        await link(path, join(t.dir, 'in', second));
        pairs.push([`in/${first}`, `in/${second}`]);
      }

      const lines = await bothShards(t);
      expect((await t.sandbox.stats()).uploads).toBe(pairs.length);
      for (const [first, second] of pairs) {
        // Both links in one shard's lines, and in no other's.
        const shard = lines.findIndex((byInput) => byInput.has(first));
        expect(lines[shard]?.has(second), `${first} and ${second} in one shard`).toBe(true);
        expect(lines[1 - shard]?.has(first) || lines[1 - shard]?.has(second)).toBe(false);
        const sent = lines[shard]?.get(first);
        expect(sent).toMatchObject({ status: 'done', output: first.replace('in/', 'out/') });
        expect(lines[shard]?.get(second)).toMatchObject({
          status: 'skipped',
          reason: `the same file as ${first} (a hard link): sent once as that`,
          sameAs: first,
          output: sent?.output,
        });
      }
      const outputs = (await listFiles(join(t.dir, 'out'))).filter((name) => !name.startsWith('.'));
      expect(outputs.sort()).toEqual(pairs.map(([first]) => first.slice('in/'.length)).sort());
    } finally {
      await t.cleanup();
    }
  });

  it('a file that gains a second link, of a lesser path in the other shard, moves there and is not sent again', async () => {
    const t = await setup();
    try {
      const name = nameInShard('b', 0);
      await t.fixture('speech-8k-ulaw.wav', `in/${name}`);
      await t.fixture('speech-16bit.wav', 'in/plain.wav');

      const first = await bothShards(t);
      expect((await t.sandbox.stats()).uploads).toBe(2);
      expect(first[0]?.get(`in/${name}`)).toMatchObject({ status: 'done' });

      // Tonight's snapshot links it under a path that sorts first and by itself falls in shard 2/2.
      const linked = nameInShard('a', 1);
      await link(join(t.dir, 'in', name), join(t.dir, 'in', linked));
      const second = await bothShards(t);
      expect((await t.sandbox.stats()).uploads).toBe(2);
      expect(second[1]?.get(`in/${linked}`)).toMatchObject({
        status: 'skipped',
        sameAs: `in/${name}`,
      });
      expect(second[1]?.get(`in/${name}`)).toMatchObject({ status: 'skipped', reason: 'already done' });
      expect(second[0]?.has(`in/${name}`)).toBe(false);
      expect(second[0]?.has(`in/${linked}`)).toBe(false);
    } finally {
      await t.cleanup();
    }
  });
});
