import type { FileHandle } from 'node:fs/promises';

/**
 * Reads exactly `length` bytes at `position` (fewer only at end of file).
 * A single `read` may legally return short, so this loops.
 */
export async function readAt(handle: FileHandle, position: number, length: number): Promise<Uint8Array> {
  const buf = new Uint8Array(length);
  let got = 0;
  while (got < length) {
    const { bytesRead } = await handle.read(buf, got, length - got, position + got);
    if (bytesRead === 0) break;
    got += bytesRead;
  }
  return got === length ? buf : buf.subarray(0, got);
}

/**
 * Yields `[start, start + length)` of a file in fixed-size chunks, so that
 * decoders never hold more than one chunk of the encoded file in memory.
 * Each chunk is a fresh buffer: consumers may keep a reference to it.
 */
export async function* readChunks(
  handle: FileHandle,
  start: number,
  length: number,
  chunkSize: number,
): AsyncGenerator<Uint8Array> {
  let pos = start;
  const end = start + length;
  while (pos < end) {
    const chunk = await readAt(handle, pos, Math.min(chunkSize, end - pos));
    if (chunk.length === 0) return;
    yield chunk;
    pos += chunk.length;
  }
}

/**
 * A movable window over a file for parsers that hop from header to header
 * (MP3 frames): header checks stay synchronous and the file is read in large
 * blocks instead of one tiny read per frame.
 */
export class FileWindow {
  private buf: Uint8Array = new Uint8Array(0);
  private start = 0;

  constructor(
    private readonly handle: FileHandle,
    readonly size: number,
    private readonly blockSize = 1 << 20,
  ) {}

  /** True when bytes `[pos, pos + len)` are in the window. */
  has(pos: number, len: number): boolean {
    return pos >= this.start && pos + len <= this.start + this.buf.length;
  }

  /** Moves the window to start at `pos`; returns false when `len` bytes are not in the file there. */
  async load(pos: number, len: number): Promise<boolean> {
    this.buf = await readAt(this.handle, pos, Math.max(len, Math.min(this.blockSize, this.size - pos)));
    this.start = pos;
    return this.has(pos, len);
  }

  /** Byte at absolute `pos`; only valid after `has(pos, …)`. */
  byte(pos: number): number {
    return this.buf[pos - this.start] ?? 0;
  }

  /** View of `[pos, pos + len)`; only valid after `has(pos, len)`. */
  view(pos: number, len: number): Uint8Array {
    return this.buf.subarray(pos - this.start, pos - this.start + len);
  }
}
