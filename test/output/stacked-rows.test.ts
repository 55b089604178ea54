/** Rows stacked for a terminal too narrow for them side by side: every width, every kind of cell. */
import { describe, expect, it } from 'vitest';
import { columnsOf } from '../../src/output/fit.js';
import { stackedLines } from '../../src/output/stacked-rows.js';
import type { Narrowable } from '../../src/output/table-layout.js';

const HEAD = ['JOB ID', 'CREATED', 'FILE NAME', 'DURATION'];
const ROWS = [
  ['j-0001', '2026-11-29 10:00:00', 'a-very-long-recording-name-of-a-call.wav', '7.0s'],
  ['j-0002', '2026-11-29 10:00:01', '会議の録音ファイル第二回目の分.wav', ''],
  ['j-0003', '', '👩‍👩‍👧‍👦🎙️ family call 🎙️.mp3', '12.5s'],
];
const NARROWABLE: Narrowable[] = [
  { column: 1, min: 10, words: true },
  { column: 2, min: 10 },
];

describe('stacked rows', () => {
  it('at every width from 1 to 200: each row one block, each cell whole, each line but the id within the width where it can be', () => {
    for (let width = 1; width <= 200; width++) {
      const blocks = [...stackedLines(HEAD, ROWS, width, NARROWABLE)];
      expect(blocks).toHaveLength(ROWS.length);
      blocks.forEach((block, r) => {
        const lines = block.split('\n');
        expect(lines.pop()).toBe('');
        expect(lines[0]).toBe(ROWS[r]?.[0]);
        // Headers and indents out, each cell's text is what it was, in order (words rejoined).
        const text = lines
          .slice(1)
          .map((line) => {
            let rest = line.trimStart();
            for (const label of HEAD.slice(1))
              if (rest.startsWith(label)) rest = rest.slice(label.length).trimStart();
            return rest;
          })
          .join('')
          .replaceAll(' ', '');
        expect(text, `width ${width}`).toBe(ROWS[r]?.slice(1).join('').replaceAll(' ', ''));
        // Once the widest header fits under its indent, every line does.
        if (width >= 2 + 'FILE NAME'.length)
          for (const line of lines.slice(1))
            expect(columnsOf(line), `width ${width}: ${line}`).toBeLessThanOrEqual(width);
      });
    }
  });

  it('an empty table has no lines; a row shorter than the header has its missing cells empty', () => {
    expect([...stackedLines(HEAD, [], 30)]).toEqual([]);
    expect([...stackedLines(HEAD, [['j-1']], 60)]).toEqual(['j-1\n  CREATED\n  FILE NAME\n  DURATION\n']);
  });
});
