import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, rename, rm, stat, symlink, utimes, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { OutsideOutputFolderError } from '../../src/fs/containment.js';
import { LocalFsError } from '../../src/fs/errors.js';
import { processStartTimeMs } from '../../src/fs/process-info.js';
import { type Logger, silentLogger } from '../../src/output/logger.js';
import { acquireLock, LockHeldError, lockPath, runsUnderWay } from '../../src/redact/lock.js';
import { REPO_ROOT, tempDirPerTest } from '../helpers/cli.js';
import { until } from '../helpers/e2e.js';
import { fillUp, MOUNT_SKIP_REASON, tryMountTmpfs } from '../helpers/mount.js';
import {
  ANOTHER_BOOT_ID,
  ANOTHER_PID_NAMESPACE,
  OUR_BOOT_ID,
  OUR_PID_NAMESPACE,
  OUR_PROCESS_SPACE,
} from '../helpers/process-space.js';

const dir = tempDirPerTest('vredact-lock-');

/**
 * Failures injected into the file system where a tmpfs cannot be mounted, and for paths no local
 * disk takes (a file system without hard links): the real module, with `link` and the writes of
 * lock files made to fail while `inject` says so.
 */
const inject: { linkCode?: string; writeCode?: string } = {};
afterEach(() => {
  delete inject.linkCode;
  delete inject.writeCode;
});
vi.mock('node:fs/promises', async (importOriginal) => {
  const real = await importOriginal<typeof import('node:fs/promises')>();
  const fail = (code: string) => Object.assign(new Error(`${code}: injected`), { code });
  return {
    ...real,
    link: async (...args: Parameters<typeof real.link>) => {
      if (inject.linkCode) throw fail(inject.linkCode);
      return real.link(...args);
    },
    open: async (...args: Parameters<typeof real.open>) => {
      const handle = await real.open(...args);
      if (!inject.writeCode || !String(args[0]).includes('.vredact')) return handle;
      const code = inject.writeCode;
      return new Proxy(handle, {
        get(target, key) {
          if (key === 'writeFile') return async () => Promise.reject(fail(code));
          const value = Reflect.get(target, key) as unknown;
          return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
        },
      });
    },
  };
});

function recordingLogger(): Logger & { warnings: string[] } {
  const warnings: string[] = [];
  return { ...silentLogger, warnings, warn: (message) => warnings.push(message) };
}

async function writeLock(outDir: string, content: string, name = 'lock'): Promise<string> {
  await mkdir(join(outDir, '.vredact'), { recursive: true });
  const path = lockPath(outDir, name);
  await writeFile(path, content);
  return path;
}

/** A lock of a run in this process space (this host, container and boot), unless `fields` say otherwise. */
const owner = (fields: Record<string, unknown>) =>
  JSON.stringify({
    pid: 2 ** 30,
    hostname: hostname(),
    startedAt: new Date().toISOString(),
    id: 'y',
    ...OUR_PROCESS_SPACE,
    ...fields,
  });

describe('lock', () => {
  it('refuses a second holder and lets go on release', async () => {
    const held = await acquireLock(dir.path, silentLogger);
    await expect(acquireLock(dir.path, silentLogger)).rejects.toBeInstanceOf(LockHeldError);
    await expect(acquireLock(dir.path, silentLogger)).rejects.toMatchObject({ exitCode: 2 });
    await held.release();
    expect(existsSync(held.path)).toBe(false);
    const again = await acquireLock(dir.path, silentLogger);
    await again.release();
  });

  it('is 0600 in a 0700 .vredact folder, whatever was there before', async () => {
    await mkdir(join(dir.path, '.vredact'), { mode: 0o755 });
    const held = await acquireLock(dir.path, silentLogger);
    try {
      expect((await stat(held.path)).mode & 0o777).toBe(0o600);
      expect((await stat(join(dir.path, '.vredact'))).mode & 0o777).toBe(0o700);
      expect(JSON.parse(await readFile(held.path, 'utf8'))).toMatchObject({
        pid: process.pid,
        hostname: hostname(),
      });
      // Only the lock: its temporary file is gone.
      expect(await readdir(join(dir.path, '.vredact'))).toEqual(['lock']);
    } finally {
      await held.release();
    }
  });

  it('holds one lock per shard name', async () => {
    const first = await acquireLock(dir.path, silentLogger, Date.now, { name: 'lock.1-of-2' });
    const second = await acquireLock(dir.path, silentLogger, Date.now, { name: 'lock.2-of-2' });
    expect(first.path).toBe(join(dir.path, '.vredact', 'lock.1-of-2'));
    await expect(
      acquireLock(dir.path, silentLogger, Date.now, { name: 'lock.1-of-2' }),
    ).rejects.toBeInstanceOf(LockHeldError);
    await first.release();
    await second.release();
    await expect(acquireLock(dir.path, silentLogger, Date.now, { name: '../lock' })).rejects.toThrow(
      /not a lock name/,
    );
  });

  it("refuses a run whose share of the inputs overlaps a live run's, and leaves no lock of its own", async () => {
    const acquire = (name: string) => acquireLock(dir.path, silentLogger, Date.now, { name });
    const held = await acquire('lock.1-of-3');
    // A run over every input, and a shard of another count, would send some of shard 1/3's inputs.
    const all = acquire('lock');
    await expect(all).rejects.toBeInstanceOf(LockHeldError);
    await expect(all).rejects.toThrow(/another vredact run, over shard 1\/3, is using the output folder/);
    await expect(all).rejects.toMatchObject({ hint: expect.stringContaining('shards of one count') });
    await expect(acquire('lock.1-of-2')).rejects.toBeInstanceOf(LockHeldError);
    expect((await readdir(join(dir.path, '.vredact'))).sort()).toEqual(['lock.1-of-3']);
    // Shards of one count share the folder.
    const second = await acquire('lock.2-of-3');
    await held.release();
    await second.release();
    // And the other way round: shards refused while a run over every input holds its lock.
    const whole = await acquire('lock');
    await expect(acquire('lock.2-of-3')).rejects.toThrow(/over all its inputs/);
    await whole.release();
  });

  it('lets a stale lock of another share be, without waiting on it', async () => {
    const path = await writeLock(dir.path, owner({}), 'lock.1-of-2');
    const log = recordingLogger();
    const held = await acquireLock(dir.path, log);
    expect(log.warnings).toEqual([]);
    expect(existsSync(path)).toBe(true);
    await held.release();
  });

  it('refuses a lock of a live process, and one of another host, saying how to remove it', async () => {
    const path = await writeLock(dir.path, owner({ pid: process.ppid }));
    await expect(acquireLock(dir.path, silentLogger)).rejects.toThrow(/another vredact run/);
    await writeLock(dir.path, owner({ hostname: 'elsewhere' }));
    const refused = acquireLock(dir.path, silentLogger);
    await expect(refused).rejects.toThrow(/pid 1073741824 on elsewhere/);
    await expect(refused).rejects.toMatchObject({
      hint: expect.stringContaining(`if it is not, delete ${path}`),
    });
    expect(existsSync(path)).toBe(true);
  });

  it('takes over a lock of another host that its run stopped refreshing; one still refreshed, or of an older version, is refused', async () => {
    const hourAgo = new Date(Date.now() - 3_600_000);
    const path = await writeLock(dir.path, owner({ hostname: 'pod-0-abcde', refreshMs: 30_000 }));
    // Refreshed a minute ago: its run is alive.
    await utimes(path, new Date(Date.now() - 60_000), new Date(Date.now() - 60_000));
    const alive = acquireLock(dir.path, silentLogger);
    await expect(alive).rejects.toThrow(/pid 1073741824 on pod-0-abcde/);
    await expect(alive).rejects.toMatchObject({
      hint: expect.stringContaining('a lock its run stops refreshing is taken over after 10 min'),
    });
    // An older version's lock says nothing of refreshes: never judged from another host.
    await writeLock(dir.path, owner({ hostname: 'pod-0-abcde' }));
    await utimes(path, hourAgo, hourAgo);
    await expect(acquireLock(dir.path, silentLogger)).rejects.toBeInstanceOf(LockHeldError);
    // Unrefreshed for an hour: the pod is gone.
    await writeLock(dir.path, owner({ hostname: 'pod-0-abcde', refreshMs: 30_000 }));
    await utimes(path, hourAgo, hourAgo);
    const log = recordingLogger();
    const held = await acquireLock(dir.path, log);
    expect(log.warnings.join('\n')).toMatch(
      /took over the lock .*its run \(pid 1073741824 on pod-0-abcde, .*\) has not refreshed it for 60 min/,
    );
    expect(JSON.parse(await readFile(path, 'utf8'))).toMatchObject({ pid: process.pid, refreshMs: 30_000 });
    await held.release();
  });

  it('judges a lock of our host name from another container (pid namespace) or boot by its lease, never by its pid', async () => {
    const hourAgo = new Date(Date.now() - 3_600_000);
    const here = hostname();
    for (const elsewhere of [
      { pidNamespace: ANOTHER_PID_NAMESPACE },
      { bootId: ANOTHER_BOOT_ID },
      // Our own pid, as a container's run so often has: still another process space's.
      { pidNamespace: ANOTHER_PID_NAMESPACE, pid: process.pid },
    ]) {
      const path = await writeLock(dir.path, owner({ ...elsewhere, refreshMs: 30_000 }));
      const refused = acquireLock(dir.path, silentLogger);
      await expect(refused).rejects.toBeInstanceOf(LockHeldError);
      await expect(refused).rejects.toThrow(
        `(pid ${elsewhere.pid ?? 2 ** 30} on ${here} in another container (or another boot), started `,
      );
      await expect(refused).rejects.toMatchObject({
        exitCode: 2,
        hint: expect.stringContaining('a lock its run stops refreshing is taken over after 10 min'),
      });
      expect(await runsUnderWay(dir.path)).toEqual([
        expect.objectContaining({ lock: 'lock', shown: expect.stringContaining('in another container') }),
      ]);

      await utimes(path, hourAgo, hourAgo);
      const log = recordingLogger();
      const held = await acquireLock(dir.path, log);
      expect(log.warnings.join('\n')).toMatch(
        /took over the lock .*its run \(pid \d+ on .* in another container \(or another boot\), .*\) has not refreshed it for 60 min/,
      );
      await held.release();
    }
  });

  it.skipIf(OUR_BOOT_ID === undefined && OUR_PID_NAMESPACE === undefined)(
    "judges an older version's lock of our host name, which does not say its container, by its lease",
    async () => {
      const older = { bootId: undefined, pidNamespace: undefined };
      const path = await writeLock(dir.path, owner({ ...older, refreshMs: 30_000 }));
      await expect(acquireLock(dir.path, silentLogger)).rejects.toThrow(
        /pid 1073741824 on .* of an older vredact, which does not say its container/,
      );
      const hourAgo = new Date(Date.now() - 3_600_000);
      await utimes(path, hourAgo, hourAgo);
      const held = await acquireLock(dir.path, silentLogger);
      await held.release();
      // One older still says nothing of refreshes: never judged, as another host's.
      await writeLock(dir.path, owner(older));
      await expect(acquireLock(dir.path, silentLogger)).rejects.toMatchObject({
        hint: expect.stringContaining(`if it is not, delete ${path}`),
      });
    },
  );

  it('tells status of the runs that hold a lock of the folder now, not of stale locks', async () => {
    expect(await runsUnderWay(dir.path)).toEqual([]);
    await writeLock(dir.path, owner({}), 'lock.2-of-2');
    const held = await acquireLock(dir.path, silentLogger, Date.now, { name: 'lock.1-of-2' });
    expect(await runsUnderWay(dir.path)).toEqual([
      {
        lock: 'lock.1-of-2',
        startedMs: expect.any(Number),
        shown: expect.stringMatching(`^pid ${process.pid} on `),
      },
    ]);
    await held.release();
    expect(await runsUnderWay(dir.path)).toEqual([]);
  });

  it('refreshes the lock it holds, until it is released', async () => {
    const held = await acquireLock(dir.path, silentLogger, Date.now, { refreshMs: 20 });
    const past = new Date(Date.now() - 3_600_000);
    await utimes(held.path, past, past);
    await until(async () => (await stat(held.path)).mtimeMs > past.getTime() + 60_000);
    await held.release();
    expect(existsSync(held.path)).toBe(false);
  });

  it("never refreshes a lock that is not its own: one taken over keeps its successor's time, and stays on release", async () => {
    const held = await acquireLock(dir.path, silentLogger, Date.now, { refreshMs: 20 });
    // What another host's run does to a lock whose lease lapsed: moved aside, its own put in place.
    await rename(held.path, `${held.path}.aside`);
    await rm(`${held.path}.aside`);
    const theirs = owner({ hostname: 'pod-b-7f9c2', refreshMs: 30_000 });
    await writeLock(dir.path, theirs);
    const past = new Date(Date.now() - 3_600_000);
    await utimes(held.path, past, past);
    const before = (await stat(held.path)).mtimeMs;
    // Set-up: until a refresh has judged it, or (before fencing) touched it.
    await until(async () => Boolean(held.lost?.aborted) || (await stat(held.path)).mtimeMs !== before);
    expect((await stat(held.path)).mtimeMs).toBe(before);
    expect(held.lost.reason).toMatchObject({ name: 'LockLostError', exitCode: 1 });
    await expect(held.confirm()).rejects.toThrow(
      /taken over by another run \(pid 1073741824 on pod-b-7f9c2, at /,
    );
    await held.release();
    expect(await readFile(held.path, 'utf8')).toBe(theirs);
  });

  it('takes over a stale lock of a dead process on this host, with a warning', async () => {
    await writeLock(dir.path, owner({}));
    const log = recordingLogger();
    const held = await acquireLock(dir.path, log);
    expect(log.warnings.join('\n')).toMatch(/took over the lock .*ended without releasing it/);
    expect(JSON.parse(await readFile(lockPath(dir.path), 'utf8'))).toMatchObject({ pid: process.pid });
    await held.release();
  });

  // pid 1 is alive for as long as the machine (or container) runs, and started when it booted.
  const pid1Start = processStartTimeMs(1);
  it.skipIf(pid1Start === undefined)(
    'a live pid that started after the lock was written is a reused pid: stale',
    async () => {
      const before = new Date((pid1Start ?? 0) - 3_600_000).toISOString();
      await writeLock(dir.path, owner({ pid: 1, startedAt: before }));
      const log = recordingLogger();
      const held = await acquireLock(dir.path, log);
      expect(log.warnings.join('\n')).toMatch(
        /pid 1 now belongs to a process that started after the lock was written/,
      );
      await held.release();

      // The same pid with a lock written after it started: a live run, respected.
      await writeLock(dir.path, owner({ pid: 1, startedAt: new Date().toISOString() }));
      await expect(acquireLock(dir.path, silentLogger)).rejects.toBeInstanceOf(LockHeldError);
    },
  );

  it('takes over an empty or unparsable lock once it is not new, and waits for a fresh one', async () => {
    for (const content of ['', '{"pid":', 'not json at all']) {
      const path = await writeLock(dir.path, content);
      await expect(acquireLock(dir.path, silentLogger)).rejects.toThrow(/starting/);
      const old = new Date(Date.now() - 60_000);
      await utimes(path, old, old);
      const log = recordingLogger();
      const held = await acquireLock(dir.path, log);
      expect(log.warnings.join('\n')).toMatch(/unreadable/);
      await held.release();
    }
  });

  it('refuses a .vredact folder that is a symbolic link leading outside the output folder', async () => {
    const elsewhere = join(dir.path, 'elsewhere');
    const out = join(dir.path, 'out');
    await mkdir(elsewhere);
    await mkdir(out);
    await symlink(elsewhere, join(out, '.vredact'));
    await expect(acquireLock(out, silentLogger)).rejects.toBeInstanceOf(OutsideOutputFolderError);
    expect(await readdir(elsewhere)).toEqual([]);
  });

  it('a full disk is a file-system error naming the lock, and leaves no lock at all', async ({ skip }) => {
    const mounted = await tryMountTmpfs(join(dir.path, 'small'), '256k');
    if (!mounted) return skip(MOUNT_SKIP_REASON);
    try {
      await mkdir(join(mounted.path, '.vredact'));
      await fillUp(join(mounted.path, 'filler'));
      const failed = acquireLock(mounted.path, silentLogger);
      await expect(failed).rejects.toBeInstanceOf(LocalFsError);
      await expect(failed).rejects.toMatchObject({ code: 'ENOSPC', path: lockPath(mounted.path) });
      await expect(failed).rejects.toThrow(/no space left/);
      expect(await readdir(join(mounted.path, '.vredact'))).toEqual([]);
    } finally {
      await mounted.unmount();
    }
  });

  it('a failed write (injected ENOSPC) is a file-system error naming the lock, and leaves no lock', async () => {
    inject.writeCode = 'ENOSPC';
    const failed = acquireLock(dir.path, silentLogger);
    await expect(failed).rejects.toMatchObject({ code: 'ENOSPC', path: lockPath(dir.path), exitCode: 1 });
    await expect(failed).rejects.toThrow(
      `writing the lock ${lockPath(dir.path)}: no space left on the device`,
    );
    expect(await readdir(join(dir.path, '.vredact'))).toEqual([]);
  });

  it('without hard links, writes the lock in place, and removes it when that write fails', async () => {
    inject.linkCode = 'EPERM';
    const held = await acquireLock(dir.path, silentLogger);
    expect(JSON.parse(await readFile(held.path, 'utf8'))).toMatchObject({ pid: process.pid });
    expect((await stat(held.path)).mode & 0o777).toBe(0o600);
    await expect(acquireLock(dir.path, silentLogger)).rejects.toBeInstanceOf(LockHeldError);
    await held.release();

    inject.writeCode = 'EDQUOT';
    await expect(acquireLock(dir.path, silentLogger)).rejects.toThrow(/disk quota exceeded/);
    expect(await readdir(join(dir.path, '.vredact'))).toEqual([]);
  });

  it('is removed by an exit hook that goes away again after a normal release', async () => {
    const hooks = process.listenerCount('exit');
    const held = await acquireLock(dir.path, silentLogger);
    expect(process.listenerCount('exit')).toBe(hooks + 1);
    await held.release();
    expect(process.listenerCount('exit')).toBe(hooks);
  });

  const built = join(REPO_ROOT, 'dist', 'redact', 'lock.js');
  it.skipIf(!existsSync(built))(
    'a crash (an uncaught error, process.exit) never leaves the lock behind',
    async () => {
      const run = promisify(execFile);
      for (const ending of [
        "throw new Error('crash')",
        'process.exit(3)',
        "await Promise.reject(new Error('x'))",
      ]) {
        const script = [
          `const { acquireLock } = await import(${JSON.stringify(built)});`,
          `const silent = { info() {}, warn() {}, error() {}, debug() {} };`,
          `await acquireLock(process.argv[1], silent);`,
          ending,
        ].join('\n');
        const failed = await run('node', ['--input-type=module', '-e', script, dir.path]).catch(
          (error: unknown) => error,
        );
        expect(failed).toMatchObject({ code: expect.any(Number) });
        expect(existsSync(lockPath(dir.path))).toBe(false);
      }
    },
  );
});
