import { expect, test } from 'vitest';
import { isLoopbackHost } from '../../src/net/loopback.js';

test.each([
  ['127.0.0.1', true],
  ['127.1.2.3', true],
  ['localhost', true],
  ['::1', true],
  ['[::1]', true],
  ['0.0.0.0', false],
  ['128.0.0.1', false],
  ['127.0.0.256', false],
  ['::', false],
  ['localhost.example.com', false],
])('isLoopbackHost(%j) is %s', (host, expected) => {
  expect(isLoopbackHost(host)).toBe(expected);
});
