import { expect, test } from 'vitest';
import { resultNameFor } from '../../src/sandbox/naming.js';

test.each([
  ['call.mp3', 'call.redacted.wav'],
  ['x.wav', 'x.redacted.wav'],
  ['X.WAV', 'X.redacted.wav'],
  ['noext', 'noext.redacted.wav'],
  ['.hidden', '.hidden.redacted.wav'],
  ['dir.v2/name', 'dir.v2/name.redacted.wav'],
])('the result of %j is %j', (source, result) => {
  expect(resultNameFor(source)).toBe(result);
});
