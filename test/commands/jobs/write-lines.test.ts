import { PassThrough } from 'node:stream';
import { describe, expect, test } from 'vitest';
import { alignedLines, writeLines } from '../../../src/commands/jobs/write-lines.js';
import { columnsOf } from '../../../src/output/fit.js';

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

  test('wide characters (CJK, emoji) take two columns: the next column still starts at one place', () => {
    const out = [
      ...alignedLines(
        ['JOB ID', 'CREATED', 'TOKEN'],
        [
          ['日本語のジョブ', '2026-11-21', 'vr_…1234'],
          ['😀😀-job', '2026-11-22', 'vr_…5678'],
          ['plain-job-id', '2026-11-23', 'vr_…9abc'],
        ],
      ),
    ];
    const tokenColumns = out.map((line) => columnsOf(line.slice(0, line.indexOf('vr_'))));
    expect(tokenColumns.slice(1)).toEqual([28, 28, 28]);
    expect(out[1]).toBe('日本語のジョブ  2026-11-21  vr_…1234\n');
    expect(out[2]).toBe('😀😀-job        2026-11-22  vr_…5678\n');
  });
});
