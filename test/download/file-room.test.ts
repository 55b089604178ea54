import { describe, expect, test } from 'vitest';
import { FileRoom, ROOM_STEP_BYTES } from '../../src/download/file-room.js';
import { FILE_ROOM } from '../../src/download/download-files.js';
import { NoRoomOnDisk, OutputSpace, RESERVE_BYTES } from '../../src/fs/free-space.js';

const MiB = 1024 * 1024;

/** A disk of `free` bytes that the bytes drained from a body fill as they are taken. */
function disk(free: number) {
  let written = 0;
  const space = new OutputSpace(FILE_ROOM, () => free - written);
  return {
    space,
    drain: async (body: AsyncIterable<Uint8Array>) => {
      for await (const chunk of body) written += chunk.byteLength;
    },
    written: () => written,
  };
}

async function* endless(chunk = 64 * 1024): AsyncIterable<Uint8Array> {
  const bytes = Buffer.alloc(chunk, 1);
  for (;;) yield bytes;
}

async function* sized(total: number, chunk = 64 * 1024): AsyncIterable<Uint8Array> {
  const bytes = Buffer.alloc(chunk, 1);
  for (let sent = 0; sent < total; sent += chunk) yield bytes.subarray(0, Math.min(chunk, total - sent));
}

describe('FileRoom.asItComes: a body of no announced length', () => {
  test('never writes past the free space less the reserve: it fails with the shortage first', async () => {
    const free = 40 * MiB;
    const { space, drain, written } = disk(free);
    const room = new FileRoom(space, 'out', 'a.wav');
    const failure = await drain(room.asItComes(endless())).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(NoRoomOnDisk);
    expect((failure as Error).message).toMatch(
      /^not enough free space for the next file: out has [\d.]+ MiB free, the rest of a\.wav needs about [\d.]+ MiB, and 1 MiB is kept free$/,
    );
    expect(written()).toBeLessThanOrEqual(free - RESERVE_BYTES);
    // It went as far as its steps allow, not stopping at the first.
    expect(written()).toBeGreaterThan(free - RESERVE_BYTES - 2 * ROOM_STEP_BYTES);
    room.release();
  });

  test("beside another file on its way, it keeps clear of that file's room too", async () => {
    const free = 40 * MiB;
    const { space, drain, written } = disk(free);
    const other = space.claim('out', 20 * MiB, 'b.wav');
    expect(other).not.toBeInstanceOf(NoRoomOnDisk);
    const room = new FileRoom(space, 'out', 'a.wav');
    await expect(drain(room.asItComes(endless()))).rejects.toBeInstanceOf(NoRoomOnDisk);
    expect(written()).toBeLessThanOrEqual(free - RESERVE_BYTES - 20 * MiB);
  });

  test('a body that fits passes whole, and its room is given back', async () => {
    const { space, drain, written } = disk(100 * MiB);
    const room = new FileRoom(space, 'out', 'a.wav');
    room.claim(MiB);
    await drain(room.asItComes(sized(30 * MiB + 5), MiB));
    expect(written()).toBe(30 * MiB + 5);
    room.release();
    // Nothing left claimed: the whole of what is free less the reserve can be claimed again.
    expect(space.claim('out', 100 * MiB - written() - RESERVE_BYTES, 'b.wav')).not.toBeInstanceOf(
      NoRoomOnDisk,
    );
  });
});

describe('FileRoom.announced: a body of announced length', () => {
  test('claims its length before its first byte, and nothing for a body that fails before one', async () => {
    const { space, drain } = disk(10 * MiB);
    const room = new FileRoom(space, 'out', 'a.wav');
    async function* refused(): AsyncIterable<Uint8Array> {
      yield* [];
      throw new Error('too large');
    }
    await expect(drain(room.announced(refused(), 1e12))).rejects.toThrow('too large');
    await expect(drain(room.announced(sized(MiB), 1e12))).rejects.toBeInstanceOf(NoRoomOnDisk);
    await drain(room.announced(sized(MiB), MiB));
    room.release();
  });
});
