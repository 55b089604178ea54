/** One sandbox per data folder: the lock in the folder, judged as vredact's output-folder lock is on this host. */
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DATA_LOCK_NAME, DataDirInUseError, lockDataDir } from '../../src/sandbox/data-lock.js';
import { tempDirPerTest } from '../helpers/cli.js';

const dir = tempDirPerTest('vredact-data-lock-');
const ignore = () => {};

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
});
