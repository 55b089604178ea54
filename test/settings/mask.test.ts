import { expect, test } from 'vitest';
import { maskToken, redactSecrets } from '../../src/settings/mask.js';

test.each([
  ['vr_live_0123456789abcdef', 'vr_…cdef'],
  ['sk_0123456789ab', 'sk_…89ab'],
  ['longprefix_0123456789', '…6789'],
  ['0123456789abcdef', '…cdef'],
  ['short_tok', '…'],
  ['', ''],
  [undefined, ''],
  [null, ''],
])('maskToken(%j) is %j', (token, masked) => {
  expect(maskToken(token)).toBe(masked);
});

test('redactSecrets masks every occurrence and ignores secrets under 4 characters', () => {
  expect(
    redactSecrets('a vr_live_0123456789abcdef b vr_live_0123456789abcdef', ['vr_live_0123456789abcdef']),
  ).toBe('a vr_…cdef b vr_…cdef');
  expect(redactSecrets('abc', ['abc', undefined])).toBe('abc');
});
