import { describe, expect, it } from 'vitest';
import {
  dryRunShortage,
  estimateResultBytes,
  hasRoom,
  NoRoomForResult,
  OutputSpace,
  RESERVE_BYTES,
  resultNeed,
} from '../../src/redact/free-space.js';
import { DEFAULT_DURATION_TOLERANCE } from '../../src/redact/options.js';
import { resultByteCap } from '../../src/redact/verify.js';

const KiB = 1024;
const MiB = 1024 * KiB;

describe('hasRoom: free, in flight, need → send or stop', () => {
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

describe('estimateResultBytes', () => {
  const cap = resultByteCap(60, 3);
  it('a WAV: its own size, or a minute of 16 kHz 16-bit mono, whichever is larger, plus a header', () => {
    expect(estimateResultBytes({ format: 'WAV', size: 5_760_044, durationSec: 60, capBytes: cap })).toBe(
      5_760_044 + 64 * KiB,
    );
    // 8 kHz µ-law: a speech result is twice its size.
    expect(estimateResultBytes({ format: 'WAV', size: 480_044, durationSec: 60, capBytes: cap })).toBe(
      1_920_000 + 64 * KiB,
    );
  });

  it('an MP3: decoded, or the speech layout, whichever is larger', () => {
    // 128 kbit/s: about 44.1 kHz stereo decoded.
    expect(estimateResultBytes({ format: 'MP3', size: 960_000, durationSec: 60, capBytes: cap })).toBe(
      960_000 * 12 + 64 * KiB,
    );
    // 16 kbit/s telephony.
    expect(estimateResultBytes({ format: 'MP3', size: 120_000, durationSec: 60, capBytes: cap })).toBe(
      1_920_000 + 64 * KiB,
    );
  });

  it('never more than the cap a result is held to', () => {
    expect(estimateResultBytes({ format: 'MP3', size: 10 * MiB, durationSec: 1, capBytes: 2 * MiB })).toBe(
      2 * MiB,
    );
    const need = resultNeed({ format: 'WAV', size: 100 * MiB, durationSec: 10 }, DEFAULT_DURATION_TOLERANCE);
    expect(need).toBe(resultByteCap(10, 2));
  });
});

describe('OutputSpace', () => {
  it('claims room per result on its way, gives it back once, and stops where the next does not fit', () => {
    let free = 4 * MiB;
    const asked: string[] = [];
    const space = new OutputSpace((folder) => {
      asked.push(folder);
      return free;
    });
    const first = space.claim('/out', 1 * MiB, 'in/a.wav');
    expect(typeof first).toBe('function');
    const second = space.claim('/out/2026', 1 * MiB, 'in/2026/b.wav');
    expect(typeof second).toBe('function');
    // 4 MiB free, 2 MiB on their way, 1 MiB kept: the third does not fit.
    const third = space.claim('/out', 1 * MiB + 1, 'in/c.wav');
    expect(third).toBeInstanceOf(NoRoomForResult);
    const shortage = third as NoRoomForResult;
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
    expect(space.claim('/out', 1, 'in/d.wav')).toBeInstanceOf(NoRoomForResult);
  });

  it('sends when the file system does not tell its free space', () => {
    const space = new OutputSpace(() => undefined);
    expect(typeof space.claim('/out', 100 * MiB, 'in/a.wav')).toBe('function');
  });
});

describe('dryRunShortage', () => {
  it('asks the nearest folder that exists, and says nothing when the results fit', () => {
    const folder = '/no-such-folder/out';
    expect(dryRunShortage(folder, 2, 1)).toBeUndefined();
    expect(dryRunShortage(folder, 0, Number.MAX_SAFE_INTEGER)).toBeUndefined();
    expect(dryRunShortage(folder, 2, Number.MAX_SAFE_INTEGER)).toMatch(
      /^not enough free space for the results: \/no-such-folder\/out has .+ free, the 2 file\(s\) that would be sent need about .+ before the run$/,
    );
  });
});
