import { mkdir, readdir, symlink, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { processStartTimeMs } from '../../src/fs/process-info.js';
import { sweepPartials } from '../../src/redact/sweep.js';
import { tempDirPerTest } from '../helpers/cli.js';

const dir = tempDirPerTest('vredact-sweep-');

const partial = (stem: string, pid: number) => `.${stem}.${pid}-deadbeef.vredact-partial`;
const shardPartial = (index: number, count: number, pid: number) =>
  `.v-${index}-of-${count}.${pid}-deadbeef.vredact-partial`;

describe('sweepPartials', () => {
  it('sweeps temporary files of dead processes only', async () => {
    const dead = partial('a.wav', 2 ** 30);
    const live = partial('b.wav', process.ppid);
    for (const name of [dead, live, 'a.wav', 'x.vredact-partial.txt'])
      await writeFile(join(dir.path, name), 'x');
    expect(await sweepPartials([dir.path, join(dir.path, 'missing')], dir.path)).toBe(1);
    expect((await readdir(dir.path)).sort()).toEqual([live, 'a.wav', 'x.vredact-partial.txt'].sort());
  });

  const pid1Start = processStartTimeMs(1);
  it.skipIf(pid1Start === undefined)(
    'sweeps a file of a live pid that started after the file was written',
    async () => {
      const reused = join(dir.path, partial('old.wav', 1));
      const current = join(dir.path, partial('new.wav', 1));
      await writeFile(reused, 'x');
      await writeFile(current, 'x');
      const before = new Date((pid1Start ?? 0) - 3_600_000);
      await utimes(reused, before, before);
      expect(await sweepPartials([dir.path], dir.path)).toBe(1);
      expect(await readdir(dir.path)).toEqual([partial('new.wav', 1)]);
    },
  );

  it("spares this process's own files, but not a predecessor's with the same pid", async () => {
    const mine = partial('mine.wav', process.pid);
    const predecessor = join(dir.path, partial('old.wav', process.pid));
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
    const outside = [partial('x.wav', 2 ** 30)];
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
    await writeFile(join(real, partial('a.wav', 2 ** 30)), 'x');
    await writeFile(join(real, 'inside', partial('b.wav', 2 ** 30)), 'x');
    expect(await sweepPartials([linkedOut, join(linkedOut, 'alias')], linkedOut)).toBe(2);
    expect(await readdir(join(real, 'inside'))).toEqual([]);
  });

  it("a shard removes its own marked files whoever's pid they carry, and nothing else", async () => {
    const own = [shardPartial(2, 3, process.ppid), shardPartial(2, 3, 2 ** 30)];
    const ownFresh = shardPartial(2, 3, process.pid);
    const kept = [
      ownFresh,
      shardPartial(1, 3, 2 ** 30),
      shardPartial(2, 4, 2 ** 30),
      partial('v', 2 ** 30),
      'a.wav',
    ];
    for (const name of [...own, ...kept]) await writeFile(join(dir.path, name), 'x');
    expect(await sweepPartials([dir.path], dir.path, { index: 2, count: 3 })).toBe(2);
    expect((await readdir(dir.path)).sort()).toEqual([...kept].sort());
  });

  it('a run without a shard judges marked files by their pid, as any other', async () => {
    const dead = shardPartial(1, 2, 2 ** 30);
    const live = shardPartial(1, 2, process.ppid);
    for (const name of [dead, live]) await writeFile(join(dir.path, name), 'x');
    expect(await sweepPartials([dir.path], dir.path)).toBe(1);
    expect(await readdir(dir.path)).toEqual([live]);
  });
});
