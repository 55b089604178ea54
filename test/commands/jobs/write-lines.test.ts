import { PassThrough } from 'node:stream';
import { describe, expect, test } from 'vitest';
import { alignedLines, writeLines } from '../../../src/commands/jobs/write-lines.js';
import { columnsOf } from '../../../src/output/fit.js';

describe('alignedLines on a terminal of known width', () => {
  const NAME = '2024-03-14_15-23-11_+4915112345679_outbound_agent-4712.65f6507e.redacted.wav';
  const WIDE = '通話録音_営業部_山田太郎_二〇二四年三月十四日_顧客対応記録.wav';
  const head = ['ID', 'FILE NAME', 'CREATED'];
  const rows = [
    ['123456', NAME, '2024-03-14 15:23:11 UTC'],
    ['123457', WIDE, '2024-03-14 15:23:12 UTC'],
  ];
  const narrowable = [
    { column: 1, min: 12 },
    { column: 2, min: 10, words: true },
  ];

  test('cuts the file name in its middle to fit, one line a row, ids and times whole', () => {
    const lines = [...alignedLines(head, rows, 60, narrowable)].map((line) => line.slice(0, -1));
    expect(lines).toHaveLength(3);
    for (const line of lines) expect(columnsOf(line)).toBeLessThanOrEqual(60);
    expect(lines[1]).toMatch(/^123456 {2}2024-03-14_15.*….*redacted\.wav {2}2024-03-14 15:23:11 UTC$/);
    expect(lines[2]).toMatch(/^123457 {2}通話録音.*….*\.wav {2,3}2024-03-14 15:23:12 UTC$/);
  });

  test('a terminal too narrow for the ids side by side gets each row as a block, wide characters whole', () => {
    const lines = [...alignedLines(['JOB ID', ...head.slice(1)], rows, 14, narrowable)].join('').split('\n');
    for (const line of lines) expect(columnsOf(line)).toBeLessThanOrEqual(14);
    expect(lines.slice(0, 2)).toEqual(['123456', '  FILE NAME']);
    const wide = lines.slice(lines.indexOf('123457') + 2, lines.lastIndexOf('  CREATED'));
    expect(wide.map((line) => line.slice(4)).join('')).toBe(WIDE);
    expect(lines.slice(-4)).toEqual(['    2024-03-14', '    15:23:12', '    UTC', '']);
  });

  test('keeps natural widths when the width is not known', () => {
    expect([...alignedLines(head, rows, undefined, narrowable)][1]).toBe(
      `123456  ${NAME}  2024-03-14 15:23:11 UTC\n`,
    );
  });
});

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
