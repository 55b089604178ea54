import { describe, expect, it } from 'vitest';
import { columnsOf } from '../../src/output/fit.js';
import { fitProblemLine } from '../../src/output/problem-line.js';

const LEAD = 'rejected  ';
const NAME = `nasty/bad-${'M'.repeat(240)}.wav`;

describe('fitProblemLine', () => {
  it('leaves a line that fits whole', () => {
    expect(fitProblemLine(LEAD, 'a.wav', 'empty', 80)).toBe('rejected  a.wav  empty');
  });

  it('cuts the name in its middle first, then the reason once the name is short', () => {
    expect(fitProblemLine(LEAD, NAME, 'not a WAV or MP3 file', 60)).toBe(
      'rejected  nasty/bad-MMM…MMMMMMMMM.wav  not a WAV or MP3 file',
    );
    expect(fitProblemLine(LEAD, NAME, 'not a WAV or MP3 file', 45)).toBe(
      'rejected  nasty/bad-MM…MMMMMMM.wav  not a WA…',
    );
  });

  it('never goes over the width, even narrower than the status and a short name', () => {
    for (let columns = 1; columns <= 80; columns++) {
      const line = fitProblemLine(LEAD, NAME, 'not a WAV or MP3 file', columns);
      expect(columnsOf(line)).toBeLessThanOrEqual(columns);
    }
    expect(fitProblemLine(LEAD, NAME, 'empty', 20)).toBe('rejected  nas…wav  …');
  });
});
