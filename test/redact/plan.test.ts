import { link, symlink } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PATH_MAX_BYTES, temporaryNameMaxBytes } from '../../src/fs/atomic-write.js';
import { caseIgnored } from '../../src/fs/letter-case.js';
import { expandInputs } from '../../src/redact/inputs.js';
import { buildPlan, inShard, outputRelFor, shardOf } from '../../src/redact/plan.js';
import { tempDirPerTest, touchFiles } from '../helpers/cli.js';

const dir = tempDirPerTest('vredact-plan-');

const touch = (...paths: string[]) => touchFiles(dir.path, ...paths);

async function plan(
  args: string[],
  options: {
    listed?: string[];
    outDir?: string;
    shard?: { index: number; count: number };
    /** The output folder's letter case; 'unknown' where it could not be asked. */
    ignoresCase?: boolean | 'unknown';
  } = {},
) {
  const outDir = options.outDir ?? 'out';
  const expanded = await expandInputs({
    cwd: dir.path,
    args,
    listed: options.listed,
    outDir: join(dir.path, outDir),
  });
  const result = await buildPlan(expanded, {
    cwd: dir.path,
    outDir,
    shard: options.shard,
    ignoresCase: options.ignoresCase === 'unknown' ? undefined : (options.ignoresCase ?? false),
  });
  const entries = [...result.entries];
  expect(entries).toHaveLength(result.entries.length);
  const byInput = Object.fromEntries(entries.map((entry) => [entry.display, entry]));
  return { ...result, entries, byInput };
}

describe('output paths', () => {
  it('maps a named file to <out>/<stem>.wav, whatever its folder and extension case', async () => {
    await touch('calls/2026/a.MP3', 'b.wav');
    const { byInput } = await plan(['calls/2026/a.MP3', 'b.wav']);
    expect(byInput['calls/2026/a.MP3']?.outputRel).toBe('a.wav');
    expect(byInput['calls/2026/a.MP3']?.output).toBe(join(dir.path, 'out', 'a.wav'));
    expect(byInput['b.wav']?.outputRel).toBe('b.wav');
  });

  it('mirrors a folder recursively, .wav and .mp3 in any case, skipping other and hidden files', async () => {
    await touch(
      'calls/2026/11/a.wav',
      'calls/2026/12/B.WAV',
      'calls/x.Mp3',
      'calls/notes.txt',
      'calls/.hidden.wav',
      'calls/.cache/c.wav',
    );
    const { entries } = await plan(['calls']);
    expect(entries.map((entry) => entry.outputRel).sort()).toEqual([
      '2026/11/a.wav',
      '2026/12/B.wav',
      'x.wav',
    ]);
    expect(entries.every((entry) => !entry.rejected)).toBe(true);
  });

  it('mirrors a glob under its fixed leading part, case-sensitively like the shell', async () => {
    await touch(
      'calls/2026/11/a.wav',
      'calls/2026/12/b.wav',
      'calls/2026/12/C.WAV',
      'calls/top.wav',
      'other/z.wav',
    );
    const { entries } = await plan(['calls/**/*.wav']);
    expect(entries.map((entry) => entry.outputRel).sort()).toEqual([
      '2026/11/a.wav',
      '2026/12/b.wav',
      'top.wav',
    ]);
    const deeper = await plan(['calls/2026/*/*.{wav,WAV}']);
    expect(deeper.entries.map((entry) => entry.outputRel).sort()).toEqual([
      '11/a.wav',
      '12/C.wav',
      '12/b.wav',
    ]);
  });

  it('takes names with spaces, non-ASCII letters and literal glob characters', async () => {
    await touch('my calls/Grüße été.WAV', 'take[1].wav');
    const { byInput } = await plan(['my calls', 'take[1].wav']);
    expect(byInput['my calls/Grüße été.WAV']?.outputRel).toBe('Grüße été.wav');
    expect(byInput['take[1].wav']?.outputRel).toBe('take[1].wav');
  });

  it('changes only the last extension', () => {
    expect(outputRelFor('a.b.mp3')).toBe('a.b.wav');
    expect(outputRelFor('dir/x/noext')).toBe('dir/x/noext.wav');
    expect(outputRelFor('.hidden.wav')).toBe('.hidden.wav');
    // As path.extname reads an extension: a leading dot starts no extension, a trailing one is one.
    expect(outputRelFor('.wav')).toBe('.wav.wav');
    expect(outputRelFor('dir/..wav')).toBe('dir/..wav');
    expect(outputRelFor('a.')).toBe('a.wav');
    expect(outputRelFor('dir.x/take')).toBe('dir.x/take.wav');
  });
});

describe('paths too long to be written', () => {
  /** A relative folder path of `bytes` bytes, in parts of 200 (a part may have at most 255). */
  function folderOf(bytes: number): string {
    const parts: string[] = [];
    let left = bytes;
    for (; left > 201; left -= 201) parts.push('o'.repeat(200));
    parts.push('p'.repeat(left));
    return parts.join('/');
  }
  /** The output folder under the test's folder whose path, with its closing `/`, is `bytes` long. */
  const outDirOf = (bytes: number) => folderOf(bytes - dir.path.length - 2);

  it('rejects an output whose path, or its temporary name beside it, is past PATH_MAX, before sending it', async () => {
    const long = `${'n'.repeat(96)}.wav`;
    await touch('a.wav', long);
    const temporary = temporaryNameMaxBytes(undefined);
    const fits = await plan(['a.wav'], { outDir: outDirOf(PATH_MAX_BYTES - temporary) });
    expect(fits.entries[0]?.rejected).toBeUndefined();
    const temporaryOver = await plan(['a.wav'], { outDir: outDirOf(PATH_MAX_BYTES - temporary + 1) });
    expect(Buffer.byteLength(temporaryOver.entries[0]?.output ?? '')).toBeLessThan(PATH_MAX_BYTES);
    expect(temporaryOver.entries[0]?.rejected).toBe(
      `the path of its temporary file would be ${PATH_MAX_BYTES + 1} bytes long, more than the ${PATH_MAX_BYTES} a path may have; choose an output folder with a shorter path (-o)`,
    );
    const outputOver = await plan([long], { outDir: outDirOf(PATH_MAX_BYTES - long.length + 1) });
    expect(Buffer.byteLength(outputOver.entries[0]?.output ?? '')).toBe(PATH_MAX_BYTES + 1);
    expect(outputOver.entries[0]?.rejected).toMatch(/^its output path would be \d+ bytes long/);
  });

  it('counts the mark of a shard in the temporary name', async () => {
    await touch('a.wav');
    const shard = { index: 1, count: 1 };
    expect(temporaryNameMaxBytes(shard)).toBeGreaterThan(temporaryNameMaxBytes(undefined));
    const outDir = outDirOf(PATH_MAX_BYTES - temporaryNameMaxBytes(undefined));
    const { entries } = await plan(['a.wav'], { outDir, shard });
    expect(entries[0]?.rejected).toMatch(/^the path of its temporary file would be/);
  });
});

describe('conflicts', () => {
  it('rejects both inputs that would land on one output, each naming the other', async () => {
    await touch('calls/a.wav', 'calls/a.mp3', 'elsewhere/a.wav');
    const { byInput } = await plan(['calls/a.wav', 'calls/a.mp3']);
    // What to do with the two is said too: a rejection without a next step left the user guessing.
    expect(byInput['calls/a.wav']?.rejected).toBe('same output out/a.wav as calls/a.mp3; rename one of them');
    expect(byInput['calls/a.mp3']?.rejected).toMatch(/as calls\/a\.wav/);
    const twoFolders = await plan(['calls/a.wav', 'elsewhere/a.wav']);
    expect(Object.values(twoFolders.byInput).every((entry) => entry.rejected)).toBe(true);
    const three = await plan(['calls/a.wav', 'calls/a.mp3', 'elsewhere/a.wav']);
    expect(three.byInput['calls/a.wav']?.rejected).toBe(
      'same output out/a.wav as calls/a.mp3, elsewhere/a.wav; rename all but one of them',
    );
  });

  it('says so when the two inputs on one output differ only in how their accents are written', async () => {
    await touch('calls/caf\u00e9.wav', 'calls/cafe\u0301.wav', 'calls/x.wav', 'calls/x.mp3');
    const { entries } = await plan(['calls']);
    const reasons = entries.map((entry) => entry.rejected);
    expect(reasons).toEqual(
      expect.arrayContaining([
        'same output out/caf\u00e9.wav as calls/cafe\u0301.wav (the same name, its accents written in the other Unicode form, NFC or NFD); rename one of them',
        'same output out/caf\u00e9.wav as calls/caf\u00e9.wav (the same name, its accents written in the other Unicode form, NFC or NFD); rename one of them',
        'same output out/x.wav as calls/x.mp3; rename one of them',
      ]),
    );
  });

  it('where the output folder ignores letter case, rejects both of two inputs that differ only in case', async () => {
    await touch('calls/A.WAV', 'calls/a.wav');
    const kept = await plan(['calls'], { ignoresCase: false });
    expect(kept.entries.map((entry) => entry.rejected)).toEqual([undefined, undefined]);
    // On a vfat drive or an SMB share, the second rename replaced the first, both journaled done.
    const { byInput } = await plan(['calls'], { ignoresCase: true });
    expect(byInput['calls/A.WAV']?.rejected).toBe('same output out/A.wav as calls/a.wav; rename one of them');
    expect(byInput['calls/a.wav']?.rejected).toBe('same output out/a.wav as calls/A.WAV; rename one of them');
  });

  it('where the letter case could not be asked, takes the system default and counts the outputs that differ only in case', async () => {
    await touch('calls/A.WAV', 'calls/A.mp3', 'calls/a.wav', 'calls/b.wav');
    const { byInput, caseUnknown } = await plan(['calls'], { ignoresCase: 'unknown' });
    expect(caseUnknown).toEqual({ inputs: 3, example: ['calls/A.WAV', 'calls/a.wav'] });
    expect(byInput['calls/A.mp3']?.rejected).toMatch(/^same output out\/A\.wav as calls\/A\.WAV/);
    expect(byInput['calls/a.wav']?.rejected === undefined).toBe(!caseIgnored(undefined));
    expect(byInput['calls/b.wav']?.rejected).toBeUndefined();
    const known = await plan(['calls'], { ignoresCase: false });
    expect(known.caseUnknown).toBeUndefined();
  });

  it('sends a file named twice (or reached twice) once', async () => {
    await touch('calls/a.wav');
    await symlink(join(dir.path, 'calls', 'a.wav'), join(dir.path, 'link.wav'));
    const { entries, duplicates } = await plan(['calls/a.wav', './calls/a.wav', 'calls', 'calls/*.wav'], {
      listed: ['calls/a.wav'],
    });
    expect(entries).toHaveLength(1);
    expect(entries[0]?.rejected).toBeUndefined();
    expect(duplicates).toBe(4);
    const viaLink = await plan(['calls/a.wav', 'link.wav']);
    expect(viaLink.entries).toHaveLength(1);
  });

  it('never overwrites an input, even when the output folder is the input folder', async () => {
    await touch('calls/a.wav', 'calls/b.mp3');
    const { byInput } = await plan(['calls/a.wav', 'calls/b.mp3'], { outDir: 'calls' });
    // What to do comes with it: the reason is all a nightly script's log shows of it.
    expect(byInput['calls/a.wav']?.rejected).toBe(
      'its output calls/a.wav would overwrite the input itself; choose another output folder (-o)',
    );
    expect(byInput['calls/b.mp3']?.rejected).toBeUndefined();
  });

  it('does not pick up its own outputs when the output folder is inside an input folder', async () => {
    await touch('calls/a.wav', 'calls/redacted/a.wav', 'calls/redacted/old/z.wav');
    const { entries } = await plan(['calls'], { outDir: 'calls/redacted' });
    expect(entries.map((entry) => entry.display)).toEqual(['calls/a.wav']);
    const glob = await plan(['calls/**/*.wav'], { outDir: 'calls/redacted' });
    expect(glob.entries.map((entry) => entry.display)).toEqual(['calls/a.wav']);
  });
});

describe('shards', () => {
  it('splits keys into disjoint shards that cover them all, the same way every time', () => {
    const keys = Array.from({ length: 3000 }, (_, i) => `2026/${i % 12}/call-${i}.wav`);
    for (const count of [1, 2, 3, 7]) {
      const seen = new Map<string, number>();
      for (let index = 1; index <= count; index++) {
        for (const key of keys) if (inShard(key, { index, count })) seen.set(key, (seen.get(key) ?? 0) + 1);
      }
      expect(seen.size).toBe(keys.length);
      expect([...seen.values()].every((n) => n === 1)).toBe(true);
    }
    expect(keys.map((key) => shardOf(key, 3))).toEqual(keys.map((key) => shardOf(key, 3)));
    const sizes = [0, 1, 2].map((shard) => keys.filter((key) => shardOf(key, 3) === shard).length);
    for (const size of sizes) expect(size).toBeGreaterThan(800); // roughly even
  });

  it('keys a file by its path relative to its root, so machines with other mount points agree', async () => {
    await touch('m1/calls/2026/a.wav', 'm2/archive/calls/2026/a.wav');
    const one = await plan(['m1/calls']);
    const two = await plan(['m2/archive/calls']);
    expect(one.entries[0]?.key).toBe('2026/a.wav');
    expect(two.entries[0]?.key).toBe(one.entries[0]?.key);
  });

  it('applies the shard after the conflict checks, and together the shards cover the plan', async () => {
    const names = Array.from({ length: 30 }, (_, i) => `calls/f${i}.wav`);
    await touch(...names, 'calls/f0.mp3');
    const all = await plan(['calls']);
    const shards = await Promise.all(
      [1, 2, 3].map((index) => plan(['calls'], { shard: { index, count: 3 } })),
    );
    const union = shards.flatMap((shard) => shard.entries.map((entry) => entry.display)).sort();
    expect(union).toEqual(all.entries.map((entry) => entry.display).sort());
    expect(new Set(union).size).toBe(union.length);
    const rejected = shards.flatMap((shard) => shard.entries.filter((entry) => entry.rejected));
    expect(rejected.map((entry) => entry.display).sort()).toEqual(['calls/f0.mp3', 'calls/f0.wav']);
  });

  it("puts every hard link of a file in the shard of its least path, a plain file in its path's", async () => {
    // Ten files, each linked under a second path that by path falls in the other of two shards.
    const pairs: Array<[string, string]> = [];
    for (let i = 0; pairs.length < 10; i++) {
      const first = `a${i}.wav`;
      const second = [...Array(50).keys()]
        .map((j) => `b${i}-${j}.wav`)
        .find((name) => shardOf(name, 2) !== shardOf(first, 2));
      if (second) pairs.push([first, second]);
    }
    for (const [first, second] of pairs) {
      await touch(`calls/${first}`);
      await link(join(dir.path, 'calls', first), join(dir.path, 'calls', second));
    }
    await touch('calls/plain.wav');
    const shards = await Promise.all([1, 2].map((index) => plan(['calls'], { shard: { index, count: 2 } })));
    const shardOfInput = new Map<string, number>();
    shards.forEach((shard, i) => {
      for (const entry of shard.entries) shardOfInput.set(entry.display, i);
    });
    expect(shardOfInput.size).toBe(21);
    for (const [first, second] of pairs) {
      // `a…` sorts before `b…`: the first is the least of the two paths.
      expect(shardOfInput.get(`calls/${first}`), first).toBe(shardOf(first, 2));
      expect(shardOfInput.get(`calls/${second}`), second).toBe(shardOfInput.get(`calls/${first}`));
    }
    expect(shardOfInput.get('calls/plain.wav')).toBe(shardOf('plain.wav', 2));
    // Each shard's share of linked files is its own to send once (see hard-links.ts).
    expect(shards.map((shard) => shard.hardLinks.size)).toEqual(
      [0, 1].map(
        (i) =>
          [...shardOfInput.entries()].filter(([name, at]) => at === i && name !== 'calls/plain.wav').length,
      ),
    );
  });
});
