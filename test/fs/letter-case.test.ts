/** Whether an output folder's file system ignores letter case, asked without writing. */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { ignoresLetterCase } from '../../src/fs/letter-case.js';
import { caselessLstat } from '../helpers/caseless.js';
import { tempDirPerTest } from '../helpers/cli.js';

const dir = tempDirPerTest('vredact-letter-case-');

it('tells a folder that keeps case apart by a name in it, and a folder still to be made by its parent', async () => {
  const out = join(dir.path, 'out');
  await mkdir(join(out, '2026'), { recursive: true });
  await writeFile(join(out, 'Calls.wav'), '');
  expect(await ignoresLetterCase(out)).toBe(false);
  expect(await ignoresLetterCase(join(out, 'not', 'made', 'yet'))).toBe(false);
});

it('cannot tell an empty folder (no name to swap) or one whose names have no letters', async () => {
  const empty = join(dir.path, 'empty');
  await mkdir(join(empty, 'digits', '2026'), { recursive: true });
  expect(await ignoresLetterCase(join(empty, 'digits'))).toBeUndefined();
  await mkdir(join(dir.path, 'bare'));
  expect(await ignoresLetterCase(join(dir.path, 'bare'))).toBeUndefined();
});

it('says so where the swapped spelling is the same file (as on a vfat drive or an SMB share)', async () => {
  const out = join(dir.path, 'share');
  await mkdir(out);
  await writeFile(join(out, 'Calls.wav'), '');
  expect(await ignoresLetterCase(out, caselessLstat)).toBe(true);
});
