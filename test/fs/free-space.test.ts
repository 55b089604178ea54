import { describe, expect, it } from 'vitest';
import { hasRoom, NoRoomOnDisk, OutputSpace, RESERVE_BYTES } from '../../src/fs/free-space.js';
import { RESULT_ROOM } from '../../src/redact/free-space.js';
import { FILE_ROOM } from '../../src/download/download-files.js';

const KiB = 1024;
const MiB = 1024 * KiB;

describe('hasRoom: free, in flight, need → start or stop', () => {
  it.each([
    // free, in flight, need, send?
    [10 * MiB, 0, 1 * MiB, true],
    [2 * MiB, 0, 1 * MiB, true], // exactly the need and the reserve
    [2 * MiB - 1, 0, 1 * MiB, false],
    [10 * MiB, 8 * MiB, 1 * MiB, true],
    [10 * MiB, 8 * MiB + 1, 1 * MiB, false], // the results on their way count
    [512 * KiB, 0, 100 * KiB, false], // the reserve is kept
    [0, 0, 1, false],
  ])('free %d, in flight %d, need %d: %s', (free, inFlight, need, send) => {
    expect(hasRoom({ free, inFlight, need, reserve: RESERVE_BYTES })).toBe(send);
  });
});

describe('OutputSpace', () => {
  it('claims room per result on its way, gives it back once, and stops where the next does not fit', () => {
    let free = 4 * MiB;
    const asked: string[] = [];
    const space = new OutputSpace(RESULT_ROOM, (folder) => {
      asked.push(folder);
      return free;
    });
    const first = space.claim('/out', 1 * MiB, 'in/a.wav');
    expect(typeof first).toBe('function');
    const second = space.claim('/out/2026', 1 * MiB, 'in/2026/b.wav');
    expect(typeof second).toBe('function');
    // 4 MiB free, 2 MiB on their way, 1 MiB kept: the third does not fit.
    const third = space.claim('/out', 1 * MiB + 1, 'in/c.wav');
    expect(third).toBeInstanceOf(NoRoomOnDisk);
    const shortage = third as NoRoomOnDisk;
    expect(shortage.message).toBe(
      'not enough free space for the next result: /out has 4 MiB free, in/c.wav needs about 1 MiB, ' +
        'beside about 2 MiB for the 2 result(s) on their way, and 1 MiB is kept free',
    );
    expect(shortage.hint).toBe('free some space on /out, then run the same command again');
    expect(shortage.exitCode).toBe(1);
    expect(asked).toEqual(['/out', '/out/2026', '/out']);

    // A result on disk: its bytes are in what statfs says, its claim is given back (twice is once).
    (first as () => void)();
    (first as () => void)();
    free -= 1 * MiB;
    expect(typeof space.claim('/out', 1 * MiB, 'in/c.wav')).toBe('function');
    expect(space.claim('/out', 1, 'in/d.wav')).toBeInstanceOf(NoRoomOnDisk);
  });

  it('sends when the file system does not tell its free space', () => {
    const space = new OutputSpace(RESULT_ROOM, () => undefined);
    expect(typeof space.claim('/out', 100 * MiB, 'in/a.wav')).toBe('function');
  });
});

describe('NoRoomOnDisk', () => {
  it("says the command's own noun and fix", () => {
    const shortage = new NoRoomOnDisk(
      '/out',
      140 * KiB,
      283 * KiB,
      { bytes: 0, count: 0 },
      'a.wav',
      FILE_ROOM,
    );
    expect(shortage.message).toBe(
      'not enough free space for the next file: /out has 140 KiB free, a.wav needs about 283 KiB, and 1 MiB is kept free',
    );
    expect(shortage.hint).toBe(
      'free some space on /out, or download into another folder (-o), then run the same command again',
    );
  });
});
