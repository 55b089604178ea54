/** The RIFF/WAVE rules, fed as a stream in pieces of every size. */
import { describe, expect, it } from 'vitest';
import { isRiffWave, NotWavError, WavFormatError, WavReader } from '../../src/audio/riff.js';
import { makeWav } from '../helpers/mp3.js';
import { fmtBody, rf64 } from '../helpers/odd-audio.js';

function read(bytes: Buffer, strict: boolean, piece = bytes.length) {
  const reader = new WavReader({ strict });
  for (let offset = 0; offset < bytes.length; offset += piece)
    reader.push(bytes.subarray(offset, offset + piece));
  return reader.finish();
}

/** A WAV with a LIST chunk (odd size, padded) between `fmt ` and `data`. */
function withListChunk(seconds: number): Buffer {
  const wav = makeWav(seconds);
  const list = Buffer.concat([Buffer.from('LIST'), Buffer.from([3, 0, 0, 0]), Buffer.from('abc\0')]);
  return Buffer.concat([wav.subarray(0, 36), list, wav.subarray(36)]);
}

describe('WavReader', () => {
  it('measures a WAV whatever the size of the pieces it arrives in', () => {
    for (const piece of [1, 3, 7, 44, 1000, 1 << 20]) {
      expect(read(makeWav(1.5), true, piece)).toMatchObject({ durationSec: 1.5, dataBytes: 24_000 });
      expect(read(withListChunk(0.5), true, piece)).toMatchObject({ durationSec: 0.5 });
    }
  });

  it('refuses what is not a whole WAV', () => {
    expect(() => read(Buffer.from('{"error":"this is text, not audio"}'), true)).toThrow(
      /no RIFF\/WAVE header/,
    );
    expect(() => read(makeWav(1).subarray(0, 3000), true)).toThrow(/cut short: 2956 of the 16000 bytes/);
    expect(() => read(makeWav(1).subarray(0, 36), true)).toThrow(WavFormatError);
    const noFmt = Buffer.concat([Buffer.from('RIFF\0\0\0\0WAVEdata\0\0\0\0')]);
    expect(() => read(noFmt, true)).toThrow(/data chunk comes before its fmt chunk/);
  });

  it('tells bytes that are no WAV at all from a WAV cut short before its header ends', () => {
    for (const text of ['string', '{}', '{"error":"this is text, not audio"}', 'ID3\u0004 tag and frames'])
      for (const piece of [1, 5, 1000])
        expect(() => read(Buffer.from(text), true, piece)).toThrow(NotWavError);
    for (const cut of [0, 2, 4, 7, 9, 11]) {
      const error = (() => {
        try {
          read(makeWav(1).subarray(0, cut), true);
        } catch (caught) {
          return caught;
        }
      })();
      expect(error).toBeInstanceOf(WavFormatError);
      expect(error).not.toBeInstanceOf(NotWavError);
    }
  });

  it('takes the audio present of an input cut short, and tells the declared duration early', () => {
    expect(read(makeWav(1).subarray(0, 8044), false).durationSec).toBe(0.5);
    const told: number[] = [];
    const reader = new WavReader({ strict: true, onData: (seconds) => told.push(seconds) });
    reader.push(makeWav(2).subarray(0, 50));
    expect(told).toEqual([2]);
  });

  it('recognises a RIFF/WAVE header', () => {
    expect(isRiffWave(makeWav(0.1))).toBe(true);
    expect(isRiffWave(Buffer.from('RIFF\0\0\0\0AVI '))).toBe(false);
  });

  it('reads RF64 by its ds64 sizes, in pieces of every size, and holds a result to them', () => {
    const fmt = fmtBody({ tag: 1, channels: 1, rate: 8000, bits: 16, block: 2 });
    const whole = rf64(fmt, Buffer.alloc(24_000));
    expect(isRiffWave(whole)).toBe(true);
    for (const piece of [1, 5, 64, 1 << 20]) {
      expect(read(whole, true, piece)).toMatchObject({ durationSec: 1.5, declaredDataBytes: 24_000 });
    }
    expect(() => read(whole.subarray(0, whole.length - 8000), true)).toThrow(
      /cut short: 16000 of the 24000 bytes/,
    );
    expect(read(whole.subarray(0, whole.length - 8000), false)).toMatchObject({
      durationSec: 1,
      cutShort: true,
    });
  });
});
