import { describe, expect, it } from 'vitest';
import { Numbering, PackedPaths, PackedStrings } from '../../src/redact/packed-strings.js';

describe('PackedStrings', () => {
  it('gives back every string exactly, in any script, empty ones too, past many growths', () => {
    const strings = new PackedStrings();
    const texts = Array.from({ length: 3000 }, (_, i) =>
      i % 3 === 0 ? '' : `/calls/${'é通🎙'.repeat(i % 50)}/${i}.wav`,
    );
    texts.forEach((text, i) => expect(strings.push(text)).toBe(i));
    expect(strings.length).toBe(3000);
    texts.forEach((text, i) => expect(strings.at(i)).toBe(text));
  });

  it('tells in place whether a string is a text from a position, ASCII or not', () => {
    const strings = new PackedStrings();
    for (const text of ['call.wav', 'é通🎙.wav', '', 'calls', 'cafe\u0301.wav']) strings.push(text);
    expect(strings.matches(0, 'call.wav')).toBe(true);
    expect(strings.matches(0, '/in/call.wav', 4)).toBe(true);
    expect(strings.matches(0, '/in/call.wav', 3)).toBe(false);
    expect(strings.matches(0, 'call.wa')).toBe(false);
    expect(strings.matches(0, 'call.wavx')).toBe(false);
    expect(strings.matches(0, 'call.waV')).toBe(false);
    expect(strings.matches(1, 'x/é通🎙.wav', 2)).toBe(true);
    expect(strings.matches(1, 'é通🎤.wav')).toBe(false);
    expect(strings.matches(1, 'e通🎙.wav')).toBe(false);
    expect(strings.matches(2, '')).toBe(true);
    expect(strings.matches(2, 'abc', 3)).toBe(true);
    expect(strings.matches(2, 'a')).toBe(false);
    // 'calls' (5 bytes) is not 'call' followed by nothing; a longer UTF-8 form is not a shorter text.
    expect(strings.matches(3, 'call')).toBe(false);
    expect(strings.matches(4, 'café.wav')).toBe(false);
    expect(strings.matches(4, 'cafe\u0301.wav')).toBe(true);
  });
});

describe('PackedPaths', () => {
  it('gives back POSIX, Windows and bare paths exactly, past many growths', () => {
    const paths = new PackedPaths();
    const texts = Array.from(
      { length: 2500 },
      (_, i) =>
        [
          `/archive/${i % 7}/call ${i}.wav`,
          `C:\\calls\\${i % 5}\\é${i}.mp3`,
          `bare-${i}.wav`,
          `/ends/with/slash${i}/`,
          `mixed/${i % 3}\\x${i}.wav`,
        ][i % 5] as string,
    );
    texts.forEach((text, i) => expect(paths.push(text)).toBe(i));
    expect(paths.length).toBe(2500);
    texts.forEach((text, i) => expect(paths.at(i)).toBe(text));
    texts.forEach((text, i) => {
      expect(paths.matches(i, text)).toBe(true);
      expect(paths.matches(i, `${text}x`)).toBe(false);
      expect(paths.matches(i, text.slice(0, -1))).toBe(false);
    });
    expect(paths.matches(0, '/archive/1/call 0.wav')).toBe(false);
    expect(paths.matches(0, '/archive/0/call 5.wav')).toBe(false);
  });
});

describe('Numbering', () => {
  it('numbers each distinct value once, in the order first seen', () => {
    const numbering = new Numbering<string>();
    expect(['b', 'a', 'b', 'c', 'a'].map((value) => numbering.numberOf(value))).toEqual([0, 1, 0, 2, 1]);
    expect(numbering.values).toEqual(['b', 'a', 'c']);
    expect(numbering.valueOf(2)).toBe('c');
  });
});
