import { describe, expect, it } from 'vitest';
import {
  dryRunShortage,
  estimateFromDuration,
  estimateResultBytes,
  jobResultNeed,
  RESULT_ROOM,
  resultNeed,
} from '../../src/redact/free-space.js';
import { DEFAULT_DURATION_TOLERANCE } from '../../src/redact/options.js';
import { RESULT_MAX_BYTES_PER_SECOND, resultByteCap } from '../../src/redact/result-cap.js';

const KiB = 1024;
const MiB = 1024 * KiB;

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
    const need = resultNeed({ format: 'MP3', size: 100 * MiB, durationSec: 10 }, DEFAULT_DURATION_TOLERANCE);
    expect(need).toBe(resultByteCap(10, 2));
    // A WAV's result may keep its own layout: its size is the estimate, up to the highest rate's cap.
    const hiRes = resultNeed(
      { format: 'WAV', size: 60 * 576_000, durationSec: 60 },
      DEFAULT_DURATION_TOLERANCE,
    );
    expect(hiRes).toBe(60 * 576_000 + 64 * KiB);
    const huge = resultNeed({ format: 'WAV', size: 1000 * MiB, durationSec: 10 }, DEFAULT_DURATION_TOLERANCE);
    expect(huge).toBe(resultByteCap(10, 2, RESULT_MAX_BYTES_PER_SECOND));
  });
});

describe('dryRunShortage', () => {
  it('asks the nearest folder that exists, and says nothing when the results fit', () => {
    const folder = '/no-such-folder/out';
    const all = Number.MAX_SAFE_INTEGER;
    expect(dryRunShortage(folder, { sent: 2, collected: 0, need: 1 })).toBeUndefined();
    expect(dryRunShortage(folder, { sent: 0, collected: 0, need: all })).toBeUndefined();
    expect(dryRunShortage(folder, { sent: 2, collected: 0, need: all })).toMatch(
      /^not enough free space for the results: \/no-such-folder\/out has .+ free, the 2 file\(s\) that would be sent need about .+ before the run$/,
    );
  });

  it('counts the results of the jobs it would collect', () => {
    const folder = '/no-such-folder/out';
    const all = Number.MAX_SAFE_INTEGER;
    expect(dryRunShortage(folder, { sent: 0, collected: 3, need: all })).toMatch(
      /, the results of the 3 job\(s\) that would be collected need about /,
    );
    expect(dryRunShortage(folder, { sent: 2, collected: 1, need: all })).toMatch(
      /, the 2 file\(s\) that would be sent and the results of the 1 job\(s\) that would be collected need about /,
    );
  });
});

describe('the results of jobs and listed files', () => {
  it("an earlier run's job: estimated as its upload was, the format from the upload's name", () => {
    const tolerance = DEFAULT_DURATION_TOLERANCE;
    expect(jobResultNeed({ uploadName: 'a.0badc0de.mp3', identity: { size: 960_000 } }, 60, tolerance)).toBe(
      resultNeed({ format: 'MP3', size: 960_000, durationSec: 60 }, tolerance),
    );
    expect(jobResultNeed({ uploadName: 'a.0badc0de.wav', identity: { size: 960_000 } }, 60, tolerance)).toBe(
      1_920_000 + 64 * KiB,
    );
  });

  it('a duration alone: the speech layout, under the cap', () => {
    expect(estimateFromDuration(7, resultByteCap(7, 2))).toBe(224_000 + 64 * KiB);
    expect(estimateFromDuration(7, 100 * KiB)).toBe(100 * KiB);
  });

  it("a run's words: the hint names the folder", () => {
    expect(RESULT_ROOM.fix('/out')).toBe('free some space on /out, then run the same command again');
  });
});
