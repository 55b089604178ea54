import { mkdir, readdir, symlink, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { processStartTimeMs } from '../../src/fs/process-info.js';
import { sweepPartials } from '../../src/redact/sweep.js';
import { LEASE_MS } from '../../src/fs/lock-lease.js';
import { tempDirPerTest } from '../helpers/cli.js';
import { ANOTHER_CONTAINERS_SPACE_TAG, OUR_SPACE_TAG, temporaryNameOf } from '../helpers/process-space.js';

const dir = tempDirPerTest('vredact-sweep-');

/** A temporary name of this process space, as a run here gives it; `hex` tells them apart. */
const partial = (hex: string, pid: number) => temporaryNameOf(pid, OUR_SPACE_TAG, hex);
const shardPartial = (index: number, count: number, pid: number, spaceTag = OUR_SPACE_TAG) =>
  temporaryNameOf(pid, spaceTag, 'd', `-${index}-of-${count}`);
/** The name an earlier version gave, which does not say its process space. */
const untagged = (stem: string, pid: number) => `.${stem}.${pid}-deadbeef.vredact-partial`;

describe('sweepPartials', () => {
  it('sweeps temporary files of dead processes only', async () => {
    const dead = partial('a', 2 ** 30);
    const live = partial('b', process.ppid);
    for (const name of [dead, live, 'a.wav', 'x.vredact-partial.txt'])
      await writeFile(join(dir.path, name), 'x');
    expect(await sweepPartials([dir.path, join(dir.path, 'missing')], dir.path)).toBe(1);
    expect((await readdir(dir.path)).sort()).toEqual([live, 'a.wav', 'x.vredact-partial.txt'].sort());
  });

  const pid1Start = processStartTimeMs(1);
  it.skipIf(pid1Start === undefined)(
    'sweeps a file of a live pid that started after the file was written',
    async () => {
      const reused = join(dir.path, partial('c', 1));
      const current = join(dir.path, partial('e', 1));
      await writeFile(reused, 'x');
      await writeFile(current, 'x');
      const before = new Date((pid1Start ?? 0) - 3_600_000);
      await utimes(reused, before, before);
      expect(await sweepPartials([dir.path], dir.path)).toBe(1);
      expect(await readdir(dir.path)).toEqual([partial('e', 1)]);
    },
  );

  it("spares this process's own files, but not a predecessor's with the same pid", async () => {
    const mine = partial('f', process.pid);
    const predecessor = join(dir.path, partial('c', process.pid));
    await writeFile(join(dir.path, mine), 'x');
    await writeFile(predecessor, 'x');
    const before = new Date(Date.now() - process.uptime() * 1000 - 3_600_000);
    await utimes(predecessor, before, before);
    expect(await sweepPartials([dir.path], dir.path)).toBe(1);
    expect(await readdir(dir.path)).toEqual([mine]);
  });

  it('never sweeps through a symbolic link leading outside the output folder', async () => {
    const out = join(dir.path, 'out');
    const elsewhere = join(dir.path, 'elsewhere');
    await mkdir(join(elsewhere, 'deeper'), { recursive: true });
    await mkdir(out);
    await symlink(elsewhere, join(out, 'sub'));
    const outside = [partial('0', 2 ** 30)];
    await writeFile(join(elsewhere, outside[0] ?? ''), 'not ours');
    await writeFile(join(elsewhere, 'deeper', outside[0] ?? ''), 'not ours');
    expect(await sweepPartials([join(out, 'sub'), join(out, 'sub', 'deeper'), elsewhere], out)).toBe(0);
    expect(await readdir(elsewhere)).toContain(outside[0]);
    expect(await readdir(join(elsewhere, 'deeper'))).toEqual(outside);
  });

  it('sweeps an output folder that is itself a link, and links that stay inside it', async () => {
    const real = join(dir.path, 'real');
    await mkdir(join(real, 'inside'), { recursive: true });
    await symlink(join(real, 'inside'), join(real, 'alias'));
    const linkedOut = join(dir.path, 'out-link');
    await symlink(real, linkedOut);
    await writeFile(join(real, partial('a', 2 ** 30)), 'x');
    await writeFile(join(real, 'inside', partial('b', 2 ** 30)), 'x');
    expect(await sweepPartials([linkedOut, join(linkedOut, 'alias')], linkedOut)).toBe(2);
    expect(await readdir(join(real, 'inside'))).toEqual([]);
  });

  it("a shard removes its own marked files whoever's pid they carry, and nothing else", async () => {
    const own = [
      shardPartial(2, 3, process.ppid),
      shardPartial(2, 3, 2 ** 30),
      // This process's pid, but not this process: another container's, or an earlier version's.
      shardPartial(2, 3, process.pid, ANOTHER_CONTAINERS_SPACE_TAG),
      `.v-2-of-3.${process.pid}-0123456789abcdef.vredact-partial`,
    ];
    const ownFresh = shardPartial(2, 3, process.pid);
    const kept = [
      ownFresh,
      shardPartial(1, 3, 2 ** 30),
      shardPartial(2, 4, 2 ** 30),
      partial('1', 2 ** 30),
      'a.wav',
    ];
    for (const name of [...own, ...kept]) await writeFile(join(dir.path, name), 'x');
    expect(await sweepPartials([dir.path], dir.path, { index: 2, count: 3 })).toBe(4);
    expect((await readdir(dir.path)).sort()).toEqual([...kept].sort());
  });

  it('a run without a shard judges marked files by their pid, as any other', async () => {
    const dead = shardPartial(1, 2, 2 ** 30);
    const live = shardPartial(1, 2, process.ppid);
    for (const name of [dead, live]) await writeFile(join(dir.path, name), 'x');
    expect(await sweepPartials([dir.path], dir.path)).toBe(1);
    expect(await readdir(dir.path)).toEqual([live]);
  });

  it("judges by pid only the files of this process space; another space's, or an untagged one, by the lease", async () => {
    const now = Date.now();
    const at = async (name: string, ageMs: number) => {
      await writeFile(join(dir.path, name), 'x');
      const time = new Date(now - ageMs);
      await utimes(join(dir.path, name), time, time);
    };
    const kept = [
      // Another container's, its pid dead here or alive here (another process): touched within the lease.
      temporaryNameOf(2 ** 30, ANOTHER_CONTAINERS_SPACE_TAG, 'a'),
      temporaryNameOf(process.pid, ANOTHER_CONTAINERS_SPACE_TAG, 'b'),
      untagged('c.wav', 2 ** 30),
    ];
    const almostStale = temporaryNameOf(2 ** 30, ANOTHER_CONTAINERS_SPACE_TAG, 'c');
    const stale = [
      temporaryNameOf(process.pid, ANOTHER_CONTAINERS_SPACE_TAG, 'e'),
      untagged('f.wav', process.pid),
    ];
    for (const name of kept) await at(name, 0);
    await at(almostStale, LEASE_MS - 60_000);
    for (const name of stale) await at(name, LEASE_MS + 60_000);
    expect(await sweepPartials([dir.path], dir.path, undefined, undefined, now)).toBe(2);
    expect((await readdir(dir.path)).sort()).toEqual([...kept, almostStale].sort());
  });
});
