/**
 * Whether a file holds exactly the expected bytes. vitest's `toEqual` compares a Buffer element by
 * element through its generic equality: 2.7 MB took 55 s on a loaded machine (a test timed out), and
 * even 32 KB half a second. `Buffer#equals` is a memcmp; on a mismatch the message says where.
 */
import { readFile } from 'node:fs/promises';
import { expect } from 'vitest';

export async function expectFileBytes(path: string, expected: Buffer): Promise<void> {
  const actual = await readFile(path);
  if (actual.equals(expected)) return;
  let at = 0;
  while (at < Math.min(actual.length, expected.length) && actual[at] === expected[at]) at++;
  expect.fail(
    `${path}: ${actual.length} bytes where ${expected.length} were expected, the first difference at byte ${at}`,
  );
}
