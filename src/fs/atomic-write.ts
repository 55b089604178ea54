import { randomBytes } from 'node:crypto';
import { close, fsync, open, write } from 'node:fs';
import { mkdir, rename, rm } from 'node:fs/promises';
import { promisify } from 'node:util';
import { dirname, join } from 'node:path';
import type { Readable } from 'node:stream';
import { asLocalFsError } from './errors.js';

/** Suffix of every temporary file vredact writes; a later run may sweep leftovers by it. */
export const PARTIAL_SUFFIX = '.vredact-partial';

/** The longest name of one path component on the file systems vredact writes to (bytes). */
export const NAME_MAX_BYTES = 255;

/**
 * A hidden name beside `dest`, unique to this process and call, so two writers never share one. It
 * is of fixed, short length (about 40 bytes, whatever `dest` is called), so it always fits where
 * `dest` itself fits: `.v.<pid>-<16 hex>.vredact-partial`.
 */
export function temporaryNameFor(dest: string): string {
  return join(dirname(dest), `.v.${process.pid}-${randomBytes(8).toString('hex')}${PARTIAL_SUFFIX}`);
}

// The callback API, promisified: a FileHandle costs several times as much per file, which an
// archive of 100,000 short recordings feels.
const openFd = promisify(open);
const writeFd = promisify(write);
const fsyncFd = promisify(fsync);
const closeFd = promisify(close);

/** Folders this process has made or seen: one mkdir per folder, not one per file. */
const knownDirs = new Set<string>();

async function ensureDir(dir: string): Promise<void> {
  if (knownDirs.has(dir)) return;
  await mkdir(dir, { recursive: true });
  if (knownDirs.size > 10_000) knownDirs.clear();
  knownDirs.add(dir);
}

/**
 * Streams `source` into `dest` so that `dest` appears only whole: written to a temporary name in the
 * same folder (so the rename is atomic on one file system), flushed to disk (fsync), then renamed. On
 * any failure, the source's included (a failed check of the bytes), the temporary file is removed and
 * `dest` is untouched. A local file-system failure comes out as a LocalFsError naming `dest`.
 */
export async function writeFileAtomically(
  dest: string,
  source: Readable | AsyncIterable<Uint8Array>,
  signal?: AbortSignal,
): Promise<number> {
  let temp: string | undefined;
  let bytes = 0;
  try {
    await ensureDir(dirname(dest));
    temp = temporaryNameFor(dest);
    const fd = await openFd(temp, 'wx', 0o644).catch(async (error: unknown) => {
      // The folder went away since it was made (a user cleaning up): make it again, once.
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      knownDirs.delete(dirname(dest));
      await ensureDir(dirname(dest));
      return openFd(temp as string, 'wx', 0o644);
    });
    try {
      for await (const chunk of source) {
        signal?.throwIfAborted();
        let offset = 0;
        while (offset < chunk.byteLength) {
          offset += (await writeFd(fd, chunk, offset, chunk.byteLength - offset)).bytesWritten;
        }
        bytes += chunk.byteLength;
      }
      signal?.throwIfAborted();
      await fsyncFd(fd);
    } finally {
      await closeFd(fd);
    }
    await rename(temp, dest);
    return bytes;
  } catch (error) {
    if (temp) await rm(temp, { force: true }).catch(() => {});
    throw asLocalFsError(error, dest, 'writing');
  }
}
