/**
 * The one way an input is opened for reading: without blocking, and only if it is a regular file.
 * A FIFO (or a device) put in a checked file's place between a stat and an open would make a
 * blocking open wait forever for a writer; O_NONBLOCK returns at once (it changes nothing for a
 * regular file's reads, on Linux and macOS alike), and the handle's own fstat, not the path's earlier
 * stat, says what was opened. Windows has no O_NONBLOCK and no FIFOs in the file system: 0 there.
 */
import { close, constants, fstat, open, type Stats } from 'node:fs';
import { type FileHandle, open as openHandle } from 'node:fs/promises';
import { promisify } from 'node:util';

const READ_WITHOUT_BLOCKING = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0);

const openFd = promisify(open);
const fstatFd = promisify(fstat);
const closeFd = promisify(close);

/** The error for something that is not a regular file where one must be (see fs/errors.ts). */
export function notRegularFile(stats: Pick<Stats, 'isDirectory'>): NodeJS.ErrnoException {
  return stats.isDirectory()
    ? Object.assign(new Error('is a folder'), { code: 'EISDIR' })
    : Object.assign(new Error('not a regular file'), { code: 'EFTYPE' });
}

/**
 * Opens `path` for reading as a file descriptor (the callback API: cheaper than a FileHandle for the
 * small files most batches hold), with its stats; rejects with EFTYPE (EISDIR) when it is not a
 * regular file, closing what was opened.
 */
export async function openRegularFd(path: string): Promise<{ fd: number; stats: Stats }> {
  const fd = await openFd(path, READ_WITHOUT_BLOCKING);
  try {
    const stats = await fstatFd(fd);
    if (!stats.isFile()) throw notRegularFile(stats);
    return { fd, stats };
  } catch (error) {
    await closeFd(fd).catch(() => {});
    throw error;
  }
}

/** As openRegularFd, as a FileHandle. */
export async function openRegularFile(path: string): Promise<{ handle: FileHandle; stats: Stats }> {
  const handle = await openHandle(path, READ_WITHOUT_BLOCKING);
  try {
    const stats = await handle.stat();
    if (!stats.isFile()) throw notRegularFile(stats);
    return { handle, stats };
  } catch (error) {
    await handle.close().catch(() => {});
    throw error;
  }
}
