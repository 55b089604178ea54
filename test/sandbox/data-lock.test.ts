/** One sandbox per data folder: the lock in the folder, judged as vredact's output-folder lock is on this host. */
import { existsSync } from 'node:fs';
import { readFile, stat, utimes, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  DATA_LOCK_NAME,
  DataDirInUseError,
  DataDirTakenOverError,
  lockDataDir,
} from '../../src/sandbox/data-lock.js';
import { tempDirPerTest } from '../helpers/cli.js';
import { until } from '../helpers/e2e.js';
import {
  ANOTHER_BOOT_ID,
  ANOTHER_PID_NAMESPACE,
  OUR_BOOT_ID,
  OUR_PID_NAMESPACE,
  OUR_PROCESS_SPACE,
} from '../helpers/process-space.js';

const dir = tempDirPerTest('vredact-data-lock-');
const ignore = () => {};
/** A pid no process has (over Linux's largest, 4,194,304). */
const DEAD_PID = 2 ** 30;

/** A lock of this host name, by a sandbox whose pid is gone, with `fields` over it. */
async function writeDataLock(fields: Record<string, unknown>): Promise<string> {
  const path = join(dir.path, DATA_LOCK_NAME);
  const lock = {
    pid: DEAD_PID,
    hostname: hostname(),
    ...OUR_PROCESS_SPACE,
    startedAt: new Date().toISOString(),
    id: 'theirs',
    refreshMs: 30_000,
    ...fields,
  };
  await writeFile(path, JSON.stringify(lock));
  return path;
}

const elevenMinutesAgo = () => new Date(Date.now() - 11 * 60_000);

describe('lockDataDir', () => {
  it('refuses a second holder while the first holds it, and frees the folder on release', async () => {
    const first = await lockDataDir(dir.path, ignore);
    const refused = await lockDataDir(dir.path, ignore).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(DataDirInUseError);
    expect((refused as Error).message).toContain(`pid ${process.pid} on ${hostname()}`);
    await first.release();
    expect(existsSync(join(dir.path, DATA_LOCK_NAME))).toBe(false);
    const again = await lockDataDir(dir.path, ignore);
    await again.release();
  });

  it('respects a lock of another host, and leaves it in place', async () => {
    const lock = JSON.stringify({ pid: 1, hostname: `not-${hostname()}`, startedAt: 'then', id: 'x' });
    await writeFile(join(dir.path, DATA_LOCK_NAME), lock);
    await expect(lockDataDir(dir.path, ignore)).rejects.toThrow(/another sandbox .* \(pid 1 on not-/);
    expect(await readFile(join(dir.path, DATA_LOCK_NAME), 'utf8')).toBe(lock);
  });

  it('takes over an unreadable lock, with a warning', async () => {
    await writeFile(join(dir.path, DATA_LOCK_NAME), '{"pid":');
    const warnings: string[] = [];
    const held = await lockDataDir(dir.path, (line) => warnings.push(line));
    expect(warnings).toEqual([`took over the lock of the data folder ${dir.path}: it is unreadable`]);
    await held.release();
  });

  it('a release after another took the lock over leaves the other one', async () => {
    const held = await lockDataDir(dir.path, ignore);
    const other = JSON.stringify({ pid: process.pid, hostname: hostname(), startedAt: 'now', id: 'other' });
    await writeFile(join(dir.path, DATA_LOCK_NAME), other);
    await held.release();
    expect(await readFile(join(dir.path, DATA_LOCK_NAME), 'utf8')).toBe(other);
  });

  it('says its pid, host, boot, pid namespace and refresh in its lock', async () => {
    const held = await lockDataDir(dir.path, ignore);
    expect(JSON.parse(await readFile(join(dir.path, DATA_LOCK_NAME), 'utf8'))).toMatchObject({
      pid: process.pid,
      hostname: hostname(),
      ...OUR_PROCESS_SPACE,
      refreshMs: 30_000,
    });
    await held.release();
  });

  it('takes over a lock of this process space whose sandbox is gone, at once', async () => {
    await writeDataLock({});
    const warnings: string[] = [];
    const held = await lockDataDir(dir.path, (line) => warnings.push(line));
    expect(warnings.join('\n')).toMatch(
      /its sandbox \(pid 1073741824, started .*\) ended without removing it/,
    );
    await held.release();
  });

  it('respects a lock of this host name from another container or boot while its lease is fresh, whatever its pid', async () => {
    for (const elsewhere of [
      { pidNamespace: ANOTHER_PID_NAMESPACE },
      { bootId: ANOTHER_BOOT_ID },
      // Our own pid, as a container's process so often has: still another process space's.
      { pidNamespace: ANOTHER_PID_NAMESPACE, pid: process.pid },
    ]) {
      const path = await writeDataLock(elsewhere);
      const lock = await readFile(path, 'utf8');
      const refused = lockDataDir(dir.path, ignore);
      await expect(refused).rejects.toBeInstanceOf(DataDirInUseError);
      await expect(refused).rejects.toMatchObject({
        owner: expect.stringContaining(
          `pid ${elsewhere.pid ?? DEAD_PID} on ${hostname()} in another container (or another boot), started `,
        ),
        hint: 'stop that sandbox, or give another --data-dir; a lock its sandbox stops refreshing is taken over after 10 min',
      });
      expect(await readFile(path, 'utf8')).toBe(lock);

      // Its lease lapsed: its sandbox is gone (or cut off), and the folder is taken over.
      await utimes(path, elevenMinutesAgo(), elevenMinutesAgo());
      const warnings: string[] = [];
      const held = await lockDataDir(dir.path, (line) => warnings.push(line));
      expect(warnings.join('\n')).toMatch(
        /took over the lock of the data folder .*: its sandbox \(pid \d+ on .* in another container \(or another boot\), .*\) has not refreshed it for 11 min/,
      );
      await held.release();
    }
  });

  it.skipIf(OUR_BOOT_ID === undefined && OUR_PID_NAMESPACE === undefined)(
    "judges an earlier version's lock, which says neither its container nor its refresh, by a lease too",
    async () => {
      const path = await writeDataLock({ bootId: undefined, pidNamespace: undefined, refreshMs: undefined });
      await expect(lockDataDir(dir.path, ignore)).rejects.toThrow(
        /pid 1073741824 on .* of an older vredact, which does not say its container/,
      );
      await utimes(path, elevenMinutesAgo(), elevenMinutesAgo());
      const held = await lockDataDir(dir.path, ignore);
      await held.release();
    },
  );

  it('a lock of another host is taken over once its lease has lapsed', async () => {
    const path = await writeDataLock({ hostname: `not-${hostname()}`, pid: 1 });
    await expect(lockDataDir(dir.path, ignore)).rejects.toBeInstanceOf(DataDirInUseError);
    await utimes(path, elevenMinutesAgo(), elevenMinutesAgo());
    const held = await lockDataDir(dir.path, ignore);
    await held.release();
  });

  it('refreshes its lock while it holds it, so that its lease never lapses', async () => {
    const held = await lockDataDir(dir.path, ignore, { refreshMs: 50 });
    const path = join(dir.path, DATA_LOCK_NAME);
    await utimes(path, elevenMinutesAgo(), elevenMinutesAgo());
    await until(async () => Date.now() - (await stat(path)).mtimeMs < 60_000);
    await held.release();
    expect(existsSync(path)).toBe(false);
  });

  it('once its lock names another sandbox, it is lost: confirm() rejects saying who took the folder over, and release leaves that lock', async () => {
    let now = Date.now();
    const held = await lockDataDir(dir.path, ignore, { refreshMs: 30_000, now: () => now });
    await held.confirm();
    // What a successor on another host writes once it has moved this lock aside.
    const path = await writeDataLock({
      pid: 4242,
      hostname: 'pod-b-7f9c2',
      startedAt: '2026-11-21T02:12:00.000Z',
      id: 'successor',
    });
    const theirs = await readFile(path, 'utf8');
    // Checked again once its last check is 2 refreshes old: before then, a write costs no file-system call.
    now += 60_000;
    const confirmed = held.confirm();
    await expect(confirmed).rejects.toBeInstanceOf(DataDirTakenOverError);
    await expect(confirmed).rejects.toThrow(
      `another sandbox took the data folder ${dir.path} over (pid 4242 on pod-b-7f9c2, started 2026-11-21T02:12:00.000Z) while this one went 60 s without refreshing its lock (was this machine suspended, or the process stopped?); this one stops: use the other one, or give this one another --data-dir`,
    );
    expect(held.lost.aborted).toBe(true);
    expect(held.lost.reason).toBeInstanceOf(DataDirTakenOverError);
    await held.release();
    expect(await readFile(path, 'utf8')).toBe(theirs);
  });
});
