import { expect, test } from 'vitest';
import { displayText, escapeControls, MAX_MESSAGE_CHARS, truncate } from '../../src/output/sanitize.js';

test('escapeControls shows C0 (but tab), DEL and C1 characters escaped, and keeps the rest', () => {
  expect(escapeControls('\u001b[2Jred\rline\nnext\tgrüße\u007f\u009b')).toBe(
    '\\x1b[2Jred\\rline\\nnext\tgrüße\\x7f\\x9b',
  );
  expect(escapeControls('plain text, ünïcødé')).toBe('plain text, ünïcødé');
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
