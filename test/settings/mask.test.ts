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

test.each([
  // A file name cut to fit a line, from its start or its end, then in the middle.
  ['failed    …ve_0123456789abcdef.wav', 'failed    …vr_…cdef.wav'],
  ['in/vr_live_0123…', 'in/vr_…cdef…'],
  ['in/vr_live…456789abcdef.wav', 'in/vr_…cdef…vr_…cdef.wav'],
  // A run of five, or one away from an ellipsis, is left: vredact's own words may hold one.
  ['…cdef.wav and …bcdef', '…cdef.wav and …bcdef'],
  ['a live_0123 b', 'a live_0123 b'],
  // The whole token beside an ellipsis is masked once.
  ['…vr_live_0123456789abcdef', '…vr_…cdef'],
])('redactSecrets(%j) masks a run of the token cut short beside the ellipsis: %j', (text, masked) => {
  expect(redactSecrets(text, ['vr_live_0123456789abcdef'])).toBe(masked);
});
