import { describe, expect, test } from 'vitest';
import { safeBaseName } from '../../src/fs/safe-name.js';

describe('safeBaseName', () => {
  test('keeps only the base name, of either platform', () => {
    expect(safeBaseName('../../x.wav')).toBe('x.wav');
    expect(safeBaseName('..\\..\\x.wav')).toBe('x.wav');
    expect(safeBaseName('/etc/x.wav')).toBe('x.wav');
  });

  test('nothing usable: empty, blank, a dot or two, a folder', () => {
    for (const name of ['', '   ', '.', '..', 'a/', 'a/..', '\u0007'])
      expect(safeBaseName(name)).toBeUndefined();
  });

  test('control and bidirectional characters never reach the disk: what a listing shows is the name', () => {
    // U+202E would show `call\u202Evaw.exe` as "callexe.wav".
    expect(safeBaseName('call\u202Evaw.exe')).toBe('callvaw.exe');
    expect(safeBaseName('a\u200E\u2066b\u2069\u061C.wav')).toBe('ab.wav');
    expect(safeBaseName('a\u001b[2J\u009b31m.wav')).toBe('a[2J31m.wav');
  });
});
