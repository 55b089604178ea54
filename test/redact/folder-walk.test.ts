/**
 * A folder walk ends at a first interrupt, in the middle of a tree (a slow network file system):
 * before, it read every folder left to the end, and the run went on with the whole listing.
 */
import { readdir } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { walkFolder } from '../../src/redact/folder-walk.js';
import { tempDirPerTest, touchFiles } from '../helpers/cli.js';

const dir = tempDirPerTest('vredact-folder-walk-');

describe('walkFolder stopped', () => {
  it('rejects with the stop reason while a folder is being read, and reads no other folder', async () => {
    await touchFiles(dir.path, 'a/1.wav', 'b/2.wav', 'c/3.wav', 'd/4.wav', 'e/5.wav');
    const stop = new AbortController();
    const reads: string[] = [];
    const held: Array<() => void> = [];
    let holding = () => {};
    const heldNow = new Promise<void>((resolve) => (holding = resolve));
    // Every folder below the root is held (a slow file system): the walk is under way.
    const slowReaddir = ((path: string, options: unknown, callback: (...args: unknown[]) => void) => {
      reads.push(String(path));
      const read = () => readdir(path, options as { withFileTypes: true }, callback);
      if (String(path) === dir.path) return read();
      held.push(read);
      holding();
    }) as unknown as typeof readdir;
    const found: string[] = [];
    const walking = walkFolder(dir.path, { readdir: slowReaddir, stop: stop.signal }, (path) =>
      found.push(path),
    );
    await heldNow;
    const reason = new Error('interrupted');
    stop.abort(reason);
    await expect(walking).rejects.toBe(reason);
    const readsAtStop = reads.length;
    for (const read of held) read();
    // The folders held come back after the stop: nothing is taken from it, and no folder is read after.
    await new Promise((resolve) => setImmediate(resolve));
    expect(found).toEqual([]);
    expect(reads.length).toBe(readsAtStop);
    expect(reads.length).toBeLessThan(6);
  });

  it('does not start when stopped already', async () => {
    await touchFiles(dir.path, 'a/1.wav');
    const stop = new AbortController();
    const reason = new Error('interrupted');
    stop.abort(reason);
    const reads: string[] = [];
    const counting = ((path: string, ...rest: unknown[]) => {
      reads.push(path);
      (readdir as (...args: unknown[]) => void)(path, ...rest);
    }) as unknown as typeof readdir;
    await expect(walkFolder(dir.path, { readdir: counting, stop: stop.signal }, () => {})).rejects.toBe(
      reason,
    );
    expect(reads).toEqual([]);
  });
});
