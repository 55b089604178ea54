import { randomBytes } from 'node:crypto';
import { mkdir, open, rename, rm } from 'node:fs/promises';
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
    const handle = await open(temp, 'wx', 0o644).catch(async (error: unknown) => {
      // The folder went away since it was made (a user cleaning up): make it again, once.
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      knownDirs.delete(dirname(dest));
      await ensureDir(dirname(dest));
      return open(temp as string, 'wx', 0o644);
    });
    try {
      for await (const chunk of source) {
        signal?.throwIfAborted();
        let offset = 0;
        while (offset < chunk.byteLength) {
          const { bytesWritten } = await handle.write(chunk, offset, chunk.byteLength - offset);
          offset += bytesWritten;
        }
        bytes += chunk.byteLength;
      }
      signal?.throwIfAborted();
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temp, dest);
    return bytes;
  } catch (error) {
    if (temp) await rm(temp, { force: true }).catch(() => {});
    throw asLocalFsError(error, dest, 'writing');
  }
}
