/**
 * Creating a small file exclusively (fails if it exists) that appears whole or not at all, for locks:
 * `open(path, "wx")` then write would leave an empty file behind on a full disk or a crash, which
 * later runs would have to guess about. Its name is made durable by a flush of its folder before it
 * is reported created (folder-flush.ts): a file server's power loss could otherwise take a lock
 * from under a run that goes on, on another host, and let a second run in.
 */
import { type FileHandle, link, open, rm } from 'node:fs/promises';
import { dirname } from 'node:path';
import { temporaryNameFor } from './atomic-write.js';
import { errnoCode } from './errors.js';
import { folderFlushes } from './folder-flush.js';
import { PRIVATE_FILE_MODE } from './private-dir.js';

/** link(2) errors that mean "no hard links on this file system", not "no permission". */
const LINK_UNSUPPORTED = new Set(['EPERM', 'ENOTSUP', 'EOPNOTSUPP', 'ENOSYS']);

async function writeAndSync(handle: FileHandle, content: string): Promise<void> {
  await handle.chmod(PRIVATE_FILE_MODE); // the umask may have cut the mode given to open
  await handle.writeFile(content);
  await handle.sync();
}

/**
 * Creates `path` (mode 0600) holding `content`, unless something is there already (false then): the
 * content is written to a temporary name, fsynced, and hard-linked into place, which fails if the
 * name is taken. File systems without hard links get the file created in place, and removed again
 * if it could not be written whole. Either way its folder is flushed before true is returned.
 * Errors are the file system's own (errno codes).
 */
export async function createPrivateFileExclusively(path: string, content: string): Promise<boolean> {
  const temp = temporaryNameFor(path);
  try {
    const handle = await open(temp, 'wx', PRIVATE_FILE_MODE);
    try {
      await writeAndSync(handle, content);
    } finally {
      await handle.close();
    }
    let linked = false;
    try {
      await link(temp, path);
      linked = true;
    } catch (error) {
      if (errnoCode(error) === 'EEXIST') return false;
      if (!LINK_UNSUPPORTED.has(errnoCode(error))) throw error;
    }
    if (!linked && !(await createInPlace(path, content))) return false;
    await flushPlaced(path);
    return true;
  } finally {
    await rm(temp, { force: true }).catch(() => {});
  }
}

/** Flushes the folder of the file just placed at `path`; a file not made durable is taken back. */
async function flushPlaced(path: string): Promise<void> {
  try {
    await folderFlushes.flushed(dirname(path));
  } catch (error) {
    await rm(path, { force: true }).catch(() => {});
    throw error;
  }
}

/** Without hard links: create the file itself exclusively, and remove it if it could not be written whole. */
async function createInPlace(path: string, content: string): Promise<boolean> {
  let handle: FileHandle;
  try {
    handle = await open(path, 'wx', PRIVATE_FILE_MODE);
  } catch (error) {
    if (errnoCode(error) === 'EEXIST') return false;
    throw error;
  }
  try {
    await writeAndSync(handle, content);
    await handle.close();
    return true;
  } catch (error) {
    await handle.close().catch(() => {});
    await rm(path, { force: true }).catch(() => {});
    throw error;
  }
}
