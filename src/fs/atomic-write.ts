import { randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, rename, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';

/** Suffix of every temporary file vredact writes; a later run may sweep leftovers by it. */
export const PARTIAL_SUFFIX = '.vredact-partial';

/** A hidden name beside `dest`, unique to this process and call, so two writers never share one. */
export function temporaryNameFor(dest: string): string {
  return join(
    dirname(dest),
    `.${basename(dest)}.${process.pid}-${randomBytes(4).toString('hex')}${PARTIAL_SUFFIX}`,
  );
}

/**
 * Streams `source` into `dest` so that `dest` appears only whole: written to a temporary name in
 * the same folder (so the rename is atomic on one filesystem), then renamed. On any failure the
 * temporary file is removed and `dest` is untouched.
 */
export async function writeFileAtomically(
  dest: string,
  source: Readable | AsyncIterable<Uint8Array>,
  signal?: AbortSignal,
): Promise<number> {
  await mkdir(dirname(dest), { recursive: true });
  const temp = temporaryNameFor(dest);
  let bytes = 0;
  try {
    const out = createWriteStream(temp, { flags: 'wx' });
    await pipeline(
      source,
      async function* count(chunks: AsyncIterable<Uint8Array>) {
        for await (const chunk of chunks) {
          bytes += chunk.length;
          yield chunk;
        }
      },
      out,
      signal ? { signal } : {},
    );
    await rename(temp, dest);
    return bytes;
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
  }
}
