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

describe('PackedStrings across its 1 MiB chunks', () => {
  it('gives back strings that meet a chunk boundary, and strings longer than a chunk, with empties between', () => {
    const strings = new PackedStrings();
    const texts: string[] = [];
    const add = (text: string) => {
      expect(strings.push(text)).toBe(texts.length);
      texts.push(text);
    };
    // 1,048,576 bytes fill the first chunk exactly with 4,096 strings of 256 bytes; then one that
    // does not fit in what is left of a chunk, strings longer than a chunk, and empties after them.
    for (let i = 0; i < 4096; i++) add(String(i).padStart(256, 'a'));
    add('fits-exactly-after');
    for (let i = 0; i < 3000; i++) add(`${i}-${'é'.repeat(170)}`); // 345+ bytes each: some must skip
    add('');
    add('x'.repeat(1024 * 1024 + 5));
    add('');
    add('after-long');
    add('通'.repeat(800_000)); // 2.4 MB: spans three slots
    add('');
    add('');
    add('last');
    texts.forEach((text, i) => expect(strings.at(i)).toBe(text));
    texts.forEach((text, i) => expect(strings.matches(i, text)).toBe(true));
    expect(strings.matches(texts.length - 1, 'lasT')).toBe(false);
    expect([...strings.sortedOrder()].map((i) => strings.at(i))).toEqual([...texts].sort());
  });

  it('cleared, holds nothing, and is filled again exactly, long strings and chunk boundaries included', () => {
    const strings = new PackedStrings();
    const fill = (tag: string) => {
      const texts = [
        ...Array.from({ length: 5000 }, (_, i) => `${tag}-${i}-${'é'.repeat(120)}`),
        'y'.repeat(1024 * 1024 + 9),
        '',
        `${tag}-after-long`,
      ];
      texts.forEach((text, i) => expect(strings.push(text)).toBe(i));
      return texts;
    };
    fill('first');
    strings.clear();
    expect(strings.length).toBe(0);
    const texts = fill('second');
    expect(strings.length).toBe(texts.length);
    texts.forEach((text, i) => expect(strings.at(i)).toBe(text));
  });
});

describe('PackedStrings#sortedOrder', () => {
  const sortedBy = (texts: string[]) => {
    const strings = new PackedStrings();
    for (const text of texts) strings.push(text);
    return [...strings.sortedOrder()].map((index) => strings.at(index));
  };

  it('orders the strings as JavaScript sorts them, by UTF-16 unit, whatever the script', () => {
    const texts = [
      'd0001/f000002.wav',
      'd0000/f000010.wav',
      'd0000/f000001.wav',
      'd0000/f00000.wav',
      'd0000/f000001.wav',
      '',
      'D0000/a.wav',
      'd0000/é.wav',
      'd0000/e.wav',
      'd0000/通.wav',
      // A character outside the BMP sorts before U+E000–U+FFFF by unit but after them by code point.
      'd0000/🎙.wav',
      'd0000/\uFF21.wav',
      'd0000/\uE000.wav',
      'cafe\u0301',
      'café',
      'caf',
    ];
    expect(sortedBy(texts)).toEqual([...texts].sort());
  });

  it('orders thousands of random names as the strings sort', () => {
    const alphabet = ['a', 'b', 'Z', '/', '.', '0', 'é', '通', '🎙', '\uFF21'];
    let seed = 7;
    const random = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
    const texts = Array.from({ length: 5000 }, () =>
      Array.from(
        { length: Math.floor(random() * 8) },
        () => alphabet[Math.floor(random() * alphabet.length)],
      ).join(''),
    );
    expect(sortedBy(texts)).toEqual([...texts].sort());
  });

  it('gives nothing for no strings', () => {
    expect([...new PackedStrings().sortedOrder()]).toEqual([]);
  });
});

describe('PackedStrings#drainSorted', () => {
  it('gives every string once in sorted order, long and empty ones too, then holds nothing', () => {
    const strings = new PackedStrings();
    const texts = [
      ...Array.from({ length: 9000 }, (_, i) => `d${(i * 7919) % 9000}/${'é'.repeat(i % 90)}.wav`),
      '',
      'z'.repeat(1024 * 1024 + 3),
      '',
      'a-after-long',
      '',
    ];
    for (const text of texts) strings.push(text);
    const freed: number[] = [];
    expect([...strings.drainSorted((bytes) => freed.push(bytes))]).toEqual([...texts].sort());
    expect(strings.length).toBe(0);
    // Each chunk is let go once, told as the bytes written in it: every string's, and what was left
    // at the end of a chunk where the next string did not fit (less than one string).
    const written = texts.reduce((sum, text) => sum + Buffer.byteLength(text), 0);
    const told = freed.reduce((sum, bytes) => sum + bytes, 0);
    expect(told).toBeGreaterThanOrEqual(written);
    expect(told - written).toBeLessThan(400 * (freed.length - 1));
    expect(freed).toContain(1024 * 1024 + 3);
    expect(freed).toContain('a-after-long'.length);
  });

  it('lets a chunk go as soon as its last string is given, before any string of a later chunk', () => {
    const strings = new PackedStrings();
    // 256-byte strings in order: 4,096 fill each 1 MiB chunk.
    const texts = Array.from({ length: 3 * 4096 }, (_, i) => String(i).padStart(256, '0'));
    for (const text of texts) strings.push(text);
    const events: string[] = [];
    for (const text of strings.drainSorted(() => events.push('freed'))) events.push(text);
    expect(events.filter((event) => event === 'freed')).toHaveLength(3);
    // Let go once its last string is read, before that string is given.
    expect(events.indexOf('freed')).toBe(4095);
    expect(events.slice(4096, 4098)).toEqual([texts[4095], texts[4096]]);
    expect(events.at(-2)).toBe('freed');
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
