import { describe, expect, it } from 'vitest';
import { columnsOf, fitParts, fitPath, fitWidth } from '../../src/output/fit.js';

describe('terminal widths', () => {
  it('columnsOf counts wide characters twice and combining marks as nothing', () => {
    expect(columnsOf('abc é')).toBe(5);
    expect(columnsOf('日本')).toBe(4);
    expect(columnsOf('e\u0301')).toBe(1);
  });

  it('fitWidth leaves a line that fits, and cuts one that does not with … at the exact width', () => {
    expect(fitWidth('short', 10)).toBe('short');
    expect(fitWidth('0123456789', 10)).toBe('0123456789');
    expect(fitWidth('0123456789ab', 10)).toBe('012345678…');
    const wide = fitWidth('日本語のファイル名.wav', 9);
    expect(columnsOf(wide)).toBeLessThanOrEqual(9);
    expect(wide.endsWith('…')).toBe(true);
    expect(fitWidth('abc', 0)).toBe('…');
  });

  it('fitWidth never overruns the width when a wide character straddles the last column', () => {
    expect(fitWidth('ab日本語', 4)).toBe('ab…');
    expect(fitWidth('日本語', 2)).toBe('…');
    for (const text of [
      'ab日本語',
      'a\u{1f468}\u200d\u{1f469}\u200d\u{1f467}b日本語日本語',
      '😀😀😀😀😀😀',
    ]) {
      for (let columns = 1; columns <= columnsOf(text); columns++)
        expect(columnsOf(fitWidth(text, columns))).toBeLessThanOrEqual(columns);
    }
    const problem = `rejected  in/${'😀'.repeat(30)}.wav  not a WAV or MP3 file`;
    expect(columnsOf(fitWidth(problem, 40))).toBeLessThanOrEqual(40);
  });

  it('fitPath keeps the file name and the first folders, or the end of a long file name, never over the width', () => {
    expect(fitPath('short.wav', 20)).toBe('short.wav');
    expect(fitPath('calls/2026/a-long-name.wav', 20)).toBe('cal…/a-long-name.wav');
    expect(fitPath('calls/2026/a-long-name.wav', 14)).toBe('…long-name.wav');
    expect(fitPath('abc', 1)).toBe('…');
    const wide = '日本/語語語語語語語語語語語語.mp3';
    for (let columns = 1; columns <= columnsOf(wide); columns++)
      expect(columnsOf(fitPath(wide, columns))).toBeLessThanOrEqual(columns);
    expect(fitPath(wide, 16)).toMatch(/^…語*\.mp3$/);
  });

  it('fitParts drops the highest-ranked parts first, keeps the order, then cuts', () => {
    const parts = [
      { text: '12/40 files', rank: 0 },
      { text: '3 failed', rank: 1 },
      { text: 'eta 2:10', rank: 2 },
    ];
    expect(fitParts(parts, ' · ', 80)).toBe('12/40 files · 3 failed · eta 2:10');
    expect(fitParts(parts, ' · ', 25)).toBe('12/40 files · 3 failed');
    expect(fitParts(parts, ' · ', 12)).toBe('12/40 files');
    expect(fitParts(parts, ' · ', 6)).toBe('12/40…');
  });

  it('fitParts never leaves out a part of rank 0: it cuts the line instead', () => {
    const parts = [
      { text: 'redacted 20', rank: 0 },
      { text: 'skipped 0', rank: 2 },
      { text: 'rejected 1', rank: 0 },
    ];
    expect(fitParts(parts, ' · ', 24)).toBe('redacted 20 · rejected 1');
    expect(fitParts(parts, ' · ', 18)).toBe('redacted 20 · rej…');
  });
});
