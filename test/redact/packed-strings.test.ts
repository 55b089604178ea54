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
