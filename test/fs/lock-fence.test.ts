import { describe, expect, it } from 'vitest';
import { LockFence } from '../../src/fs/lock-fence.js';
import { LockLostError, runLockLost } from '../../src/redact/lock-lost.js';

const REFRESH_MS = 30_000;
const ours = JSON.stringify({ pid: 10, hostname: 'here', startedAt: '2026-11-21T02:00:00.000Z', id: 'mine' });
const theirs = JSON.stringify({
  pid: 4242,
  hostname: 'pod-b-7f9c2',
  startedAt: '2026-11-21T02:12:00.000Z',
  id: 'theirs',
  refreshMs: REFRESH_MS,
});

/** A fence over a lock file played in memory, on a clock that moves only when told. */
function fenceOver(initial: string | Error) {
  let content: string | Error = initial;
  let now = Date.parse('2026-11-21T02:00:00.000Z');
  const reads: number[] = [];
  const touches: number[] = [];
  const fence = new LockFence({
    id: 'mine',
    refreshMs: REFRESH_MS,
    now: () => now,
    files: {
      read: async () => {
        reads.push(now);
        if (content instanceof Error) throw content;
        return content;
      },
      touch: async (at) => {
        touches.push(at.getTime());
      },
    },
    // The run's words: what a holder says of its lost lock is its own.
    lostError: runLockLost('/srv/redacted', '/srv/redacted/.vredact/lock'),
  });
  return {
    fence,
    reads,
    touches,
    set: (next: string | Error) => {
      content = next;
    },
    pass: (ms: number) => {
      now += ms;
    },
  };
}

const gone = () => Object.assign(new Error('ENOENT: no such file'), { code: 'ENOENT' });

describe('the lock fence', () => {
  it('costs no file-system call while the last check is recent, and checks once the lock has gone unchecked too long', async () => {
    const lock = fenceOver(ours);
    for (let i = 0; i < 1000; i++) await lock.fence.confirm();
    lock.pass(2 * REFRESH_MS - 1);
    await lock.fence.confirm();
    expect(lock.reads).toEqual([]);
    lock.pass(1);
    // Uploads that all start after a pause wait for one check, not one each.
    await Promise.all([lock.fence.confirm(), lock.fence.confirm(), lock.fence.confirm()]);
    expect(lock.reads).toHaveLength(1);
    await lock.fence.confirm();
    expect(lock.reads).toHaveLength(1);
  });

  it('checks again when the clock went back', async () => {
    const lock = fenceOver(ours);
    lock.pass(-60_000);
    await lock.fence.confirm();
    expect(lock.reads).toHaveLength(1);
  });

  it('stops for good once the lock names another run, saying whose it is and how long this one went unrefreshed', async () => {
    const lock = fenceOver(ours);
    lock.set(theirs);
    lock.pass(14 * 60_000);
    const confirmed = lock.fence.confirm();
    await expect(confirmed).rejects.toBeInstanceOf(LockLostError);
    await expect(confirmed).rejects.toMatchObject({
      exitCode: 1,
      message:
        'the lock of the output folder /srv/redacted was taken over by another run (pid 4242 on pod-b-7f9c2, at 2026-11-21T02:12:00.000Z) while this run went 14 min without refreshing it (was this machine suspended, or the process stopped?)',
      hint: expect.stringMatching(
        /^nothing to do: that run goes on with the batch; .*same output folder and shard$/,
      ),
    });
    expect(lock.fence.lost.aborted).toBe(true);
    expect(lock.fence.lost.reason).toBeInstanceOf(LockLostError);
    // Even were the lock ours again, a run that lost it once has stopped: it asks no more.
    lock.set(ours);
    await expect(lock.fence.confirm()).rejects.toBeInstanceOf(LockLostError);
    expect(lock.reads).toHaveLength(1);
  });

  it('takes a lock that cannot be parsed, or is gone, for lost; one that cannot be read, not', async () => {
    const unreadable = fenceOver(ours);
    unreadable.set('{"pid":');
    unreadable.pass(REFRESH_MS * 3);
    await expect(unreadable.fence.confirm()).rejects.toThrow(
      /taken over by another run \(its lock cannot be read\)/,
    );

    const removed = fenceOver(ours);
    removed.set(gone());
    removed.pass(REFRESH_MS * 3);
    await expect(removed.fence.confirm()).rejects.toMatchObject({
      message: expect.stringMatching(
        /^the lock \/srv\/redacted\/\.vredact\/lock was removed while this run held it/,
      ),
      hint: expect.stringMatching(/^run the same command again to finish the batch/),
    });

    // An NFS server away: the run goes on, and asks again at the next upload.
    const away = fenceOver(ours);
    away.set(Object.assign(new Error('EIO: i/o error'), { code: 'EIO' }));
    away.pass(REFRESH_MS * 3);
    await away.fence.confirm();
    await away.fence.confirm();
    expect(away.reads).toHaveLength(2);
    expect(away.fence.lost.aborted).toBe(false);
  });

  it('a refresh checks the lock first, and touches it only while it is ours', async () => {
    const lock = fenceOver(ours);
    lock.pass(REFRESH_MS);
    await lock.fence.refresh();
    expect(lock.reads).toHaveLength(1);
    expect(lock.touches).toHaveLength(1);
    // A refresh come late (the process was paused): the lock is another run's now.
    lock.pass(15 * 60_000);
    lock.set(theirs);
    await lock.fence.refresh();
    expect(lock.reads).toHaveLength(2);
    expect(lock.touches).toHaveLength(1);
    expect(lock.fence.lost.aborted).toBe(true);
    // Measured from the last refresh that touched it.
    expect(String((lock.fence.lost.reason as Error).message)).toMatch(/while this run went 15 min without/);
    await lock.fence.refresh();
    expect(lock.touches).toHaveLength(1);
  });
});
