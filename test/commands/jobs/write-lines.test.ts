import { PassThrough } from 'node:stream';
import { describe, expect, test } from 'vitest';
import { alignedLines, writeLines } from '../../../src/commands/jobs/write-lines.js';

describe('writeLines and alignedLines', () => {
  test('every line arrives, in order, through a stream that pushes back', async () => {
    const stream = new PassThrough({ highWaterMark: 1024 });
    let text = '';
    stream.on('data', (chunk: Buffer) => {
      text += chunk.toString('utf8');
    });
    const lines = Array.from({ length: 50_000 }, (_, i) => `line ${i}\n`);
    await writeLines(stream, lines);
    stream.end();
    expect(text).toBe(lines.join(''));
  });

  test('columns are padded to their widest cell under the header; the last is not padded', () => {
    const out = [
      ...alignedLines(
        ['JOB ID', 'TOKEN'],
        [
          ['a', 'vr_…1234'],
          ['a-much-longer-id', '…'],
        ],
      ),
    ];
    expect(out).toEqual([
      'JOB ID            TOKEN\n',
      'a                 vr_…1234\n',
      'a-much-longer-id  …\n',
    ]);
  });
});
