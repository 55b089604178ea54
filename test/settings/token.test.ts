import { expect, test } from 'vitest';
import { UsageError } from '../../src/errors.js';
import { requireSendableToken, tokenProblem } from '../../src/settings/token.js';

test('a token a header can carry passes; nothing, whitespace, a line break, a control character, a character past ASCII or a quote mark around it does not', () => {
  expect(tokenProblem('vr_live_0123456789abcdef')).toBeUndefined();
  expect(tokenProblem('eyJhbGciOi.J9-_~+/abc==')).toBeUndefined();
  expect(tokenProblem('')).toMatch(/empty/);
  expect(tokenProblem('vr_live 0123')).toMatch(/whitespace/);
  expect(tokenProblem('vr_live_0123\t')).toMatch(/whitespace/);
  expect(tokenProblem('\u00a0vr_live_0123')).toMatch(/whitespace/);
  expect(tokenProblem('vr_live_0123456789abcdé')).toMatch(/not ASCII/);
  expect(tokenProblem('vr_live_0123\r\nX-Evil: 1')).toMatch(/line break/);
  expect(tokenProblem('vr_live_0123\u0000')).toMatch(/control character/);
  expect(tokenProblem('vr_live_0123\u007f')).toMatch(/control character/);
  expect(tokenProblem('vr_live_0123€')).toMatch(/not ASCII/);
  for (const quoted of [
    '"vr_live_0123"',
    "'vr_live_0123'",
    '"vr_live_0123',
    "vr_live_0123'",
    '`vr_live_0123`',
  ]) {
    expect(tokenProblem(quoted)).toMatch(/quote mark/);
  }
});

test('the usage error names where the token came from, never the token', () => {
  const error = (() => {
    try {
      requireSendableToken('vr_live_secret_0123\nsecond', 'env');
    } catch (caught) {
      return caught;
    }
  })() as UsageError;
  expect(error).toBeInstanceOf(UsageError);
  expect(error.message).toBe('the usage token (from VREDACT_TOKEN) cannot be used: it holds a line break');
  expect(`${error.message}${error.hint}`).not.toContain('secret');
});
