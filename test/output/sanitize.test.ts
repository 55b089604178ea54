import { describe, expect, it, test } from 'vitest';
import { displayText, escapeControls, MAX_MESSAGE_CHARS, truncate } from '../../src/output/sanitize.js';

test('escapeControls shows C0 (but tab), DEL and C1 characters escaped, and keeps the rest', () => {
  expect(escapeControls('\u001b[2Jred\rline\nnext\tgrüße\u007f\u009b')).toBe(
    '\\x1b[2Jred\\rline\\nnext\tgrüße\\x7f\\x9b',
  );
  expect(escapeControls('plain text, ünïcødé')).toBe('plain text, ünïcødé');
});

test('escapeControls shows the bidirectional controls escaped: a name cannot reorder what the terminal shows', () => {
  expect(escapeControls('bad-h\u202Eevil.wav')).toBe('bad-h\\u202eevil.wav');
  const all = '\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f\u061c';
  expect(escapeControls(`a${all}b`)).toBe(
    'a\\u202a\\u202b\\u202c\\u202d\\u202e\\u2066\\u2067\\u2068\\u2069\\u200e\\u200f\\u061cb',
  );
  expect(displayText('x\u2067y')).toBe('x\\u2067y');
  // Other format characters that do not reorder text are kept (a joiner inside an emoji).
  expect(escapeControls('\u{1f468}\u200d\u{1f469}')).toBe('\u{1f468}\u200d\u{1f469}');
});

test('escapeControls shows invisible characters escaped: a name cannot pass for another or hide a part', () => {
  // A zero-width space, word joiner or byte-order mark shows nothing: `invoice\u200b.wav` would read as
  // `invoice.wav`. Line and paragraph separators break a line on some terminals.
  expect(escapeControls('in\u200bvoice\u2060.wav\ufeff')).toBe('in\\u200bvoice\\u2060.wav\\ufeff');
  expect(displayText('a\u2028b\u2029c')).toBe('a\\u2028b\\u2029c');
});

test('truncate cuts at the limit and says how much was left out', () => {
  expect(truncate('short')).toBe('short');
  const long = 'x'.repeat(MAX_MESSAGE_CHARS + 5);
  expect(truncate(long)).toBe(`${'x'.repeat(MAX_MESSAGE_CHARS)}… (5 more characters)`);
  expect(truncate('abcdef', 3)).toBe('abc… (3 more characters)');
  expect(truncate('abc', 3)).toBe('abc');
});

test('displayText also turns tabs into spaces, for a line or a TSV field', () => {
  expect(displayText('a\tb\u001bc')).toBe('a b\\x1bc');
});

describe('escapeJsonControls', () => {
  it('escapes DEL, C1 and the bidirectional controls that JSON.stringify leaves raw, as the same JSON', async () => {
    const { escapeJsonControls } = await import('../../src/output/table.js');
    const value = { name: 'a\u202Evaw.exe\u009b\u007f\u2066' };
    const line = escapeJsonControls(JSON.stringify(value));
    expect(line).toBe('{"name":"a\\u202evaw.exe\\u009b\\u007f\\u2066"}');
    expect(JSON.parse(line)).toEqual(value);
  });
});

test('escapeControls shows a lone surrogate escaped, not as the U+FFFD a terminal would get; pairs are kept', () => {
  // A lone half cannot be written as UTF-8: the terminal showed `x\ufffdy`, a name no one can type back.
  expect(escapeControls('x\ud800y \udc00z')).toBe('x\\ud800y \\udc00z');
  expect(escapeControls('end\ud83d')).toBe('end\\ud83d');
  expect(escapeControls('\u{1f600} ok')).toBe('\u{1f600} ok');
  expect(displayText('a\udfffb')).toBe('a\\udfffb');
});

test('truncate never cuts between the halves of a pair', () => {
  expect(truncate(`ab\u{1f600}cd`, 3)).toBe('ab… (4 more characters)');
});

test('escapeControls shows the other invisible format characters escaped: a soft hyphen, invisible operators', () => {
  // Each is drawn as nothing on a terminal: `invoice\u00ad.wav` read as `invoice.wav`.
  const invisible = '\u00ad\u180e\u2061\u2062\u2063\u2064\u206a\u206f\ufff9\ufffb';
  expect(escapeControls(`a${invisible}b`)).toBe(
    'a\\xad\\u180e\\u2061\\u2062\\u2063\\u2064\\u206a\\u206f\\ufff9\\ufffbb',
  );
  // Visible neighbours stay: the replacement character, an object replacement, Arabic and Hebrew.
  expect(escapeControls('\ufffd\ufffc שלום مرحبا')).toBe('\ufffd\ufffc שלום مرحبا');
});
