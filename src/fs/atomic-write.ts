import { randomBytes } from 'node:crypto';
import { close, fsync, open, write, writev } from 'node:fs';
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
const writevFd = promisify(writev);
const fsyncFd = promisify(fsync);
const closeFd = promisify(close);

/** Bytes gathered before one writev: a whole result of a short recording goes in one call. */
const GATHER_BYTES = 256 * 1024;

/** Writes `chunks` whole, in one writev when the system takes it all (a short write finishes by parts). */
async function writeChunks(fd: number, chunks: Uint8Array[]): Promise<void> {
  let total = 0;
  for (const chunk of chunks) total += chunk.byteLength;
  let written = (await writevFd(fd, chunks)).bytesWritten;
  if (written === total) return;
  for (const chunk of chunks) {
    if (written >= chunk.byteLength) {
      written -= chunk.byteLength;
      continue;
    }
    let offset = written;
    written = 0;
    while (offset < chunk.byteLength) {
      offset += (await writeFd(fd, chunk, offset, chunk.byteLength - offset)).bytesWritten;
    }
  }
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
  const written = await writeUnpublished(dest, source, signal);
  await written.publish();
  return written.bytes;
}

/** A whole temporary file not yet under its name: `publish` flushes and renames it, `discard` removes it. */
export interface Unpublished {
  readonly bytes: number;
  publish(): Promise<void>;
  discard(): Promise<void>;
}

/**
 * The first half of writeFileAtomically: `source` written whole to the temporary file, left open.
 * Split so that an upload's slot is freed once its answer is in, while the flush and the rename
 * overlap the next uploads. The caller must publish or discard it.
 */
export async function writeUnpublished(
  dest: string,
  source: Readable | AsyncIterable<Uint8Array>,
  signal?: AbortSignal,
): Promise<Unpublished> {
  let temp: string | undefined;
  let fd: number | undefined;
  let bytes = 0;
  try {
    await ensureDir(dirname(dest));
    temp = temporaryNameFor(dest);
    fd = await openFd(temp, 'wx', 0o644).catch(async (error: unknown) => {
      // The folder went away since it was made (a user cleaning up): make it again, once.
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      knownDirs.delete(dirname(dest));
      await ensureDir(dirname(dest));
      return openFd(temp as string, 'wx', 0o644);
    });
    let gathered: Uint8Array[] = [];
    let gatheredBytes = 0;
    for await (const chunk of source) {
      signal?.throwIfAborted();
      gathered.push(chunk);
      gatheredBytes += chunk.byteLength;
      bytes += chunk.byteLength;
      if (gatheredBytes >= GATHER_BYTES) {
        await writeChunks(fd, gathered);
        gathered = [];
        gatheredBytes = 0;
      }
    }
    signal?.throwIfAborted();
    if (gathered.length > 0) await writeChunks(fd, gathered);
  } catch (error) {
    if (fd !== undefined) await closeFd(fd).catch(() => {});
    if (temp) await rm(temp, { force: true }).catch(() => {});
    throw asLocalFsError(error, dest, 'writing');
  }
  return unpublished(dest, temp, fd, bytes);
}

function unpublished(dest: string, temp: string, fd: number, bytes: number): Unpublished {
  let settled = false;
  return {
    bytes,
    async publish() {
      if (settled) return;
      settled = true;
      try {
        try {
          await fsyncFd(fd);
        } finally {
          await closeFd(fd);
        }
        await rename(temp, dest);
      } catch (error) {
        await rm(temp, { force: true }).catch(() => {});
        throw asLocalFsError(error, dest, 'writing');
      }
    },
    async discard() {
      if (settled) return;
      settled = true;
      await closeFd(fd).catch(() => {});
      await rm(temp, { force: true }).catch(() => {});
    },
  };
}
