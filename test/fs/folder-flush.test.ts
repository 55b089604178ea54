import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FolderFlushes, fsyncFolder, MAX_OPEN_FOLDERS } from '../../src/fs/folder-flush.js';
import { tempDirPerTest } from '../helpers/cli.js';

const dir = tempDirPerTest('vredact-folder-flush-');

/** An injected flush that records each call and ends only when the test says. */
function recordingFlush() {
  const calls: Array<{ dir: string; end: (error?: Error) => void }> = [];
  let open = 0;
  let mostOpen = 0;
  const flush = (folder: string) =>
    new Promise<void>((resolve, reject) => {
      open++;
      mostOpen = Math.max(mostOpen, open);
      calls.push({
        dir: folder,
        end: (error) => {
          open--;
          if (error) reject(error);
          else resolve();
        },
      });
    });
  return { flush, calls, mostOpen: () => mostOpen };
}

/** Lets every promise settled so far run its callbacks. */
const settle = () => new Promise((resolve) => setImmediate(resolve));

/** Whether `promise` has settled by now. */
async function settled(promise: Promise<unknown>): Promise<boolean> {
  let done = false;
  promise.then(
    () => (done = true),
    () => (done = true),
  );
  await settle();
  return done;
}

describe('FolderFlushes: one flush of a folder for the renames made before it started', () => {
  it('a rename alone is flushed at once, and resolves when that flush ends', async () => {
    const recorded = recordingFlush();
    const flushes = new FolderFlushes(recorded.flush);
    const flushed = flushes.flushed('/out');
    expect(recorded.calls.map((call) => call.dir)).toEqual(['/out']);
    expect(await settled(flushed)).toBe(false);
    recorded.calls[0]?.end();
    expect(await settled(flushed)).toBe(true);
  });

  it('renames made while a flush is under way share the next one, which starts when it ends', async () => {
    const recorded = recordingFlush();
    const flushes = new FolderFlushes(recorded.flush);
    const first = flushes.flushed('/out');
    const later = Array.from({ length: 31 }, () => flushes.flushed('/out'));
    await settle();
    // The flush under way may have read the folder before these renames: it does not cover them.
    expect(recorded.calls).toHaveLength(1);
    recorded.calls[0]?.end();
    expect(await settled(first)).toBe(true);
    expect(await settled(Promise.all(later))).toBe(false);
    expect(recorded.calls).toHaveLength(2);
    recorded.calls[1]?.end();
    expect(await settled(Promise.all(later))).toBe(true);
    expect(recorded.calls.map((call) => call.dir)).toEqual(['/out', '/out']);
  });

  it('a rename after the second flush started waits for a third', async () => {
    const recorded = recordingFlush();
    const flushes = new FolderFlushes(recorded.flush);
    void flushes.flushed('/out');
    const second = flushes.flushed('/out');
    recorded.calls[0]?.end();
    await settle();
    expect(recorded.calls).toHaveLength(2);
    const third = flushes.flushed('/out');
    recorded.calls[1]?.end();
    expect(await settled(second)).toBe(true);
    expect(await settled(third)).toBe(false);
    expect(recorded.calls).toHaveLength(3);
    recorded.calls[2]?.end();
    expect(await settled(third)).toBe(true);
  });

  it('folders are flushed apart, each as soon as asked', async () => {
    const recorded = recordingFlush();
    const flushes = new FolderFlushes(recorded.flush);
    const a = flushes.flushed('/out/a');
    const b = flushes.flushed('/out/b');
    expect(recorded.calls.map((call) => call.dir)).toEqual(['/out/a', '/out/b']);
    recorded.calls[1]?.end();
    expect(await settled(b)).toBe(true);
    expect(await settled(a)).toBe(false);
    recorded.calls[0]?.end();
    expect(await settled(a)).toBe(true);
  });

  it('a failed flush rejects the renames it covered; the next one is flushed again', async () => {
    const recorded = recordingFlush();
    const flushes = new FolderFlushes(recorded.flush);
    const first = flushes.flushed('/out');
    const second = flushes.flushed('/out');
    const failure = Object.assign(new Error('EIO: injected'), { code: 'EIO' });
    recorded.calls[0]?.end(failure);
    await expect(first).rejects.toBe(failure);
    await settle();
    recorded.calls[1]?.end();
    await expect(second).resolves.toBeUndefined();
    const again = flushes.flushed('/out');
    expect(recorded.calls).toHaveLength(3);
    recorded.calls[2]?.end();
    await expect(again).resolves.toBeUndefined();
  });

  it(`holds at most ${MAX_OPEN_FOLDERS} folders open at once, however many are written to`, async () => {
    const recorded = recordingFlush();
    const flushes = new FolderFlushes(recorded.flush);
    const all = Array.from({ length: 50 }, (_, i) => flushes.flushed(`/out/${i}`));
    for (let ended = 0; ended < 50; ended++) {
      await settle();
      recorded.calls[ended]?.end();
    }
    await Promise.all(all);
    expect(recorded.calls).toHaveLength(50);
    expect(recorded.mostOpen()).toBe(MAX_OPEN_FOLDERS);
  });
});

describe('fsyncFolder', () => {
  it('flushes a real folder', async () => {
    await expect(fsyncFolder(dir.path)).resolves.toBeUndefined();
  });

  it('says when the folder is not there', async () => {
    await expect(fsyncFolder(join(dir.path, 'gone'))).rejects.toMatchObject({ code: 'ENOENT' });
  });
});
