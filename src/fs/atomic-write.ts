import { close, fsync, open, write, writev } from 'node:fs';
import { rename, rm } from 'node:fs/promises';
import { makeFolder } from './make-folder.js';
import { promisify } from 'node:util';
import { dirname, join } from 'node:path';
import type { Readable } from 'node:stream';
import { randomHex } from '../random-hex.js';
import { SPACE_TAG_DIGITS, thisSpaceTag } from './process-space.js';
import { asLocalFsError } from './errors.js';
import { folderFlushes } from './folder-flush.js';

/** Suffix of every temporary file vredact writes; a later run may sweep leftovers by it. */
export const PARTIAL_SUFFIX = '.vredact-partial';

/** The longest name of one path component on the file systems vredact writes to (bytes). */
export const NAME_MAX_BYTES = 255;

/**
 * The longest path (bytes, without the closing NUL) a system call takes: PATH_MAX less one. Windows
 * paths are given to the system in their long form by Node.js, which takes 32,767 characters.
 */
export const PATH_MAX_BYTES =
  process.platform === 'darwin' ? 1023 : process.platform === 'win32' ? 32_767 : 4095;

/** `-<i>-of-<n>` in this process's temporary names once it runs as a shard; empty otherwise. */
let shardTag = '';

/** `-<i>-of-<n>`, the mark of shard `i` of `n` in temporary names. */
function shardTagOf(shard: { index: number; count: number } | undefined): string {
  return shard ? `-${shard.index}-of-${shard.count}` : '';
}

/**
 * The bytes of the longest temporary name (see temporaryNameFor) a run as `shard` can give, whatever
 * its pid (Linux's are at most 4,194,304): where it does not fit beside an output, that output
 * cannot be written, and a plan made before the run has a pid of its own says the same.
 */
export function temporaryNameMaxBytes(shard: { index: number; count: number } | undefined): number {
  return `.v${shardTagOf(shard)}.${'9'.repeat(7)}-${'f'.repeat(SPACE_TAG_DIGITS)}-${'f'.repeat(16)}${PARTIAL_SUFFIX}`
    .length;
}

/**
 * Marks this process's temporary names as shard `i` of `n`'s (`.v-<i>-of-<n>.<pid>-…`). A pid says
 * nothing about a process on another host, so only the shard's own next run, holding its lock,
 * can tell them for leftovers. One process runs one batch, so the mark is the process's, like its pid.
 */
export function markTemporaryNamesAsShard(shard: { index: number; count: number } | undefined): void {
  shardTag = shardTagOf(shard);
}

/**
 * A hidden name beside `dest`, unique to this process and call, so two writers never share one:
 * `.v.<pid>-<space>-<16 hex>.vredact-partial`. The pid means something only in its process space
 * (host, boot, pid namespace: a container's run is pid 7 every time), so the name carries the space's
 * tag, and a sweep judges by pid only the names of its own space. It is of fixed, short length
 * (about 50 bytes, whatever `dest` is called; a shard's mark adds a few), so it always fits where
 * `dest` itself fits.
 */
export function temporaryNameFor(dest: string): string {
  return join(
    dirname(dest),
    `.v${shardTag}.${process.pid}-${thisSpaceTag()}-${randomHex(16)}${PARTIAL_SUFFIX}`,
  );
}

// The callback API, promisified: a FileHandle costs several times as much per file, which an
// archive of 100,000 short recordings feels.
const openFd = promisify(open);
const writeFd = promisify(write);
const writevFd = promisify(writev);
const fsyncFd = promisify(fsync);
const closeFd = promisify(close);

/** Bytes gathered before one writev (and held in memory until published when that is all there is). */
export const GATHER_BYTES = 256 * 1024;

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

/** Folders this process has made or seen: one mkdir (and flush of its parent) per folder, not per file. */
const knownDirs = new Set<string>();

async function ensureDir(dir: string): Promise<void> {
  if (knownDirs.has(dir)) return;
  await makeFolder(dir);
  if (knownDirs.size > 10_000) knownDirs.clear();
  knownDirs.add(dir);
}

/**
 * Streams `source` into `dest` so that `dest` appears only whole: written to a temporary name in the
 * same folder (so the rename is atomic on one file system), flushed to disk (fsync), then renamed, and
 * the folder flushed (folder-flush.ts) before it resolves, so that what reports it done comes after. On
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

/**
 * A whole temporary file not yet under its name: `publish` flushes and renames it, then flushes its
 * folder (resolving once the rename is on disk); `discard` removes it.
 */
export interface Unpublished {
  readonly bytes: number;
  publish(): Promise<void>;
  discard(): Promise<void>;
}

/**
 * The first half of writeFileAtomically: `source` read whole and left unpublished. Split so that an
 * upload's slot is freed once its answer is in, while the flush and the rename overlap the next
 * uploads. A source of up to GATHER_BYTES (the result of a short recording) is held in memory and
 * touches the disk only when published; a larger one is written to the temporary file as it comes
 * and left open. The caller must publish or discard it.
 */
export async function writeUnpublished(
  dest: string,
  source: Readable | AsyncIterable<Uint8Array>,
  signal?: AbortSignal,
): Promise<Unpublished> {
  let file: TempFile | undefined;
  let bytes = 0;
  let gathered: Uint8Array[] = [];
  let gatheredBytes = 0;
  try {
    for await (const chunk of source) {
      signal?.throwIfAborted();
      gathered.push(chunk);
      gatheredBytes += chunk.byteLength;
      bytes += chunk.byteLength;
      if (gatheredBytes >= GATHER_BYTES) {
        file ??= await openTemp(dest);
        await writeChunks(file.fd, gathered);
        gathered = [];
        gatheredBytes = 0;
      }
    }
    signal?.throwIfAborted();
    if (!file) return held(dest, gathered, bytes);
    if (gathered.length > 0) await writeChunks(file.fd, gathered);
  } catch (error) {
    if (file) await dropTemp(file);
    throw asLocalFsError(error, dest, 'writing');
  }
  return unpublished(dest, file, bytes);
}

interface TempFile {
  path: string;
  fd: number;
}

/** A new temporary file beside `dest`, its folder made first. */
async function openTemp(dest: string): Promise<TempFile> {
  await ensureDir(dirname(dest));
  const path = temporaryNameFor(dest);
  const fd = await openFd(path, 'wx', 0o644).catch(async (error: unknown) => {
    // The folder went away since it was made (a user cleaning up): make it again, once.
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    knownDirs.delete(dirname(dest));
    await ensureDir(dirname(dest));
    return openFd(path, 'wx', 0o644);
  });
  return { path, fd };
}

async function dropTemp(file: TempFile): Promise<void> {
  await closeFd(file.fd).catch(() => {});
  await rm(file.path, { force: true }).catch(() => {});
}

/** Bytes held in memory: published by writing them to a temporary file, flushing and renaming it. */
function held(dest: string, chunks: Uint8Array[], bytes: number): Unpublished {
  let settled = false;
  return {
    bytes,
    async publish() {
      if (settled) return;
      settled = true;
      let file: TempFile | undefined;
      try {
        file = await openTemp(dest);
        await writeChunks(file.fd, chunks);
      } catch (error) {
        if (file) await dropTemp(file);
        throw asLocalFsError(error, dest, 'writing');
      }
      await unpublished(dest, file, bytes).publish();
    },
    async discard() {
      settled = true;
    },
  };
}

function unpublished(dest: string, file: TempFile, bytes: number): Unpublished {
  let settled = false;
  return {
    bytes,
    async publish() {
      if (settled) return;
      settled = true;
      try {
        try {
          await fsyncFd(file.fd);
        } finally {
          await closeFd(file.fd);
        }
        await rename(file.path, dest);
        await folderFlushes.flushed(dirname(dest));
      } catch (error) {
        await rm(file.path, { force: true }).catch(() => {});
        throw asLocalFsError(error, dest, 'writing');
      }
    },
    async discard() {
      if (settled) return;
      settled = true;
      await dropTemp(file);
    },
  };
}
