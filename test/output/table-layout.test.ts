import { describe, expect, it } from 'vitest';
import { frameColumns, naturalWidths, tableLayout } from '../../src/output/table-layout.js';

const HEAD = ['JOB ID', 'CREATED', 'TOKEN'];
const ROWS = [['6b1f0c1e-8a57-4c3a-9d4e-0123456789ab', '2024-03-14 15:23:11', 'vr_…9f3a']];
const NARROWABLE = [
  { column: 1, min: 10, words: true },
  { column: 2, min: 5 },
];

describe('tableLayout', () => {
  it('counts wide characters as two columns', () => {
    expect(naturalWidths(['ID', 'NAME'], [['1', '通話.wav']])).toEqual([2, 8]);
  });

  it('keeps natural widths in a frame when they fit or the width is not known', () => {
    expect(tableLayout(HEAD, ROWS, NARROWABLE, 80)).toEqual({
      frame: 'boxed',
      widths: [36, 19, 8],
      fits: true,
    });
    expect(tableLayout(HEAD, ROWS, NARROWABLE, undefined)).toEqual({
      frame: 'boxed',
      widths: [36, 19, 8],
      fits: true,
    });
  });

  it('narrows the columns that may give way, in order, never an identifier', () => {
    const layout = tableLayout(HEAD, ROWS, NARROWABLE, 70);
    expect(layout).toEqual({ frame: 'boxed', widths: [36, 16, 8], fits: true });
    expect(layout.widths.reduce((a, b) => a + b) + frameColumns('boxed', 3)).toBe(70);
  });

  it('gives up the frame for plain columns when the frame cannot fit, then lets lines be wider', () => {
    expect(tableLayout(HEAD, ROWS, NARROWABLE, 60)).toEqual({
      frame: 'plain',
      widths: [36, 12, 8],
      fits: true,
    });
    // A narrowed column is never narrower than its header, and the job id is never narrowed.
    expect(tableLayout(HEAD, ROWS, NARROWABLE, 40)).toEqual({
      frame: 'plain',
      widths: [36, 10, 5],
      fits: false,
    });
  });
});
