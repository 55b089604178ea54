/**
 * Small tmpfs mounts for file-system failures that root cannot otherwise meet (a full disk, a
 * read-only folder: chmod does not stop root). Mounting needs privileges a CI runner may lack:
 * `tryMountTmpfs` then answers undefined and the test skips, saying why.
 */
import { execFile } from 'node:child_process';
import { mkdir } from 'node:fs/promises';
import { promisify } from 'node:util';

const run = promisify(execFile);

export interface Mounted {
  path: string;
  /** Remounts read-only. */
  readOnly(): Promise<void>;
  /** Remounts with another size (like `4m`): a disk freed. */
  resize(size: string): Promise<void>;
  unmount(): Promise<void>;
}

export const MOUNT_SKIP_REASON = 'cannot mount a tmpfs here (needs root and mount rights)';

/** Mounts a tmpfs of `size` (like `1m`) on `path`; undefined when this machine does not allow it. */
export async function tryMountTmpfs(path: string, size = '1m'): Promise<Mounted | undefined> {
  await mkdir(path, { recursive: true });
  try {
    await run('mount', ['-t', 'tmpfs', '-o', `size=${size},mode=0755`, 'tmpfs', path]);
  } catch {
    return undefined;
  }
  let mounted = true;
  return {
    path,
    readOnly: async () => {
      await run('mount', ['-o', 'remount,ro', path]);
    },
    resize: async (size: string) => {
      await run('mount', ['-o', `remount,size=${size}`, path]);
    },
    unmount: async () => {
      if (!mounted) return;
      mounted = false;
      await run('umount', ['-l', path]);
    },
  };
}

/** Fills the file system under `path` until it has no space left. */
export async function fillUp(path: string): Promise<void> {
  const { open } = await import('node:fs/promises');
  const handle = await open(path, 'w');
  const block = Buffer.alloc(64 * 1024, 1);
  try {
    for (;;) await handle.write(block);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOSPC') throw error;
    // Fill the last part of a block too.
    for (;;) {
      try {
        await handle.write(Buffer.alloc(512, 1));
      } catch {
        break;
      }
    }
  } finally {
    await handle.close();
  }
}
