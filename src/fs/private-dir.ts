/**
 * Files under `.vredact/` (lock, journal) can name inputs and jobs of other people's recordings:
 * the folder is 0700 and its files 0600, whatever the umask.
 */
import { chmod } from 'node:fs/promises';
import { makeFolder } from './make-folder.js';
import { asLocalFsError } from './errors.js';

export const PRIVATE_DIR_MODE = 0o700;
export const PRIVATE_FILE_MODE = 0o600;

/** Creates `path` (and its parents) if missing and makes it 0700; a failure is a LocalFsError. */
export async function ensurePrivateDir(path: string): Promise<void> {
  try {
    await makeFolder(path, PRIVATE_DIR_MODE);
    // mkdir's mode is cut by the umask and leaves an existing folder as it was.
    await chmod(path, PRIVATE_DIR_MODE);
  } catch (error) {
    throw asLocalFsError(error, path, 'creating the folder');
  }
}
