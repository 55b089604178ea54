import { open, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { expect, test } from 'vitest';
import { readLines } from '../../src/status/journal-lines.js';
import { tempDirPerTest } from '../helpers/cli.js';

const dir = tempDirPerTest('vredact-lines-');

async function linesOf(content: string | Buffer, maxLineBytes?: number) {
  const path = join(dir.path, 'journal.jsonl');
  await writeFile(path, content);
  const handle = await open(path, 'r');
  const scan = { oversized: 0 };
  const lines: string[] = [];
  try {
    for await (const line of readLines(handle, scan, maxLineBytes)) lines.push(line);
  } finally {
    await handle.close();
  }
  return { lines, oversized: scan.oversized };
}

test('yields each non-empty line, with or without a final newline', async () => {
  expect(await linesOf('a\n\nb\nc')).toEqual({ lines: ['a', 'b', 'c'], oversized: 0 });
  expect(await linesOf('a\nb\n')).toEqual({ lines: ['a', 'b'], oversized: 0 });
  expect(await linesOf('')).toEqual({ lines: [], oversized: 0 });
});

test('joins lines that straddle the read chunks, multi-byte characters included', async () => {
  const long = 'é'.repeat(70_000); // 140,000 bytes: over two 64 KiB chunks, characters cut across them
  const { lines } = await linesOf(`x\n${long}\ny\n`);
  expect(lines).toEqual(['x', long, 'y']);
});

test('skips a line over the bound without keeping it, and counts it', async () => {
  const huge = 'z'.repeat(200_000);
  expect(await linesOf(`a\n${huge}\nb\n`, 100_000)).toEqual({ lines: ['a', 'b'], oversized: 1 });
  // An oversized last line without a newline is counted too.
  expect(await linesOf(`a\n${huge}`, 100_000)).toEqual({ lines: ['a'], oversized: 1 });
  // A line exactly at the bound is kept.
  expect((await linesOf(`${'q'.repeat(1000)}\n`, 1000)).lines).toHaveLength(1);
});
