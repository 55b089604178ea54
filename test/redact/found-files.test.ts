import { describe, expect, it } from 'vitest';
import { FoundFile, InputFolder } from '../../src/redact/found-file.js';
import { FoundFiles } from '../../src/redact/found-files.js';

const calls = new InputFolder('/in/calls', '/real/calls', '', 'folder', 'calls');
const deeper = new InputFolder('/in/calls/2026', '/real/calls/2026', '2026', 'folder', 'calls');

describe('FoundFiles', () => {
  it('gives back each file as it was found: folder, name in any script, link, size and time', () => {
    const files = new FoundFiles();
    const found = [
      new FoundFile(calls, 'a.wav', undefined, 32044, 1764000000123.457),
      new FoundFile(deeper, 'café 通話 🎙.mp3', undefined, 0, 0),
      new FoundFile(calls, 'link.wav', '/elsewhere/target.wav'),
    ];
    for (const file of found) files.push(file);
    expect(files.length).toBe(3);
    expect(files.folders).toEqual([calls, deeper]);
    const back = [...files];
    back.forEach((file, row) => {
      const original = found[row] as FoundFile;
      expect(file).not.toBe(original);
      expect(file.folder).toBe(original.folder);
      expect([file.name, file.linkedTo, file.seenSize, file.seenMtimeMs, file.realPath]).toEqual([
        original.name,
        original.linkedTo,
        original.seenSize,
        original.seenMtimeMs,
        original.realPath,
      ]);
      expect(files.hasRealPath(row, original.realPath)).toBe(true);
      expect(files.hasRealPath(row, `${original.realPath}x`)).toBe(false);
      expect(files.hasRealPath(row, original.realPath.slice(0, -1))).toBe(false);
    });
    expect(back[2]?.seenSize).toBe(-1);
  });

  it('keeps the plan refusals by row, and grows past its first sizes', () => {
    const files = new FoundFiles();
    const long = 'x'.repeat(240);
    for (let i = 0; i < 5000; i++) files.push(new FoundFile(i % 2 ? calls : deeper, `${long}${i}.wav`));
    files.reject(4321, 'same output as another');
    expect(files.length).toBe(5000);
    expect(files.nameAt(4999)).toBe(`${long}4999.wav`);
    expect(files.at(4321).rejected).toBe('same output as another');
    expect(files.at(4320).rejected).toBeUndefined();
    expect(files.rejectedAt(4321)).toBe('same output as another');
    expect([...files].map((file) => file.name)).toEqual(
      Array.from({ length: 5000 }, (_, i) => `${long}${i}.wav`),
    );
  });
});
