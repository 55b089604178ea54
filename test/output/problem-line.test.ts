import { describe, expect, it } from 'vitest';
import { columnsOf } from '../../src/output/fit.js';
import { fitProblemLine } from '../../src/output/problem-line.js';

const LEAD = 'rejected  ';
const NAME = `nasty/bad-${'M'.repeat(240)}.wav`;

describe('fitProblemLine', () => {
  it('leaves a line that fits whole', () => {
    expect(fitProblemLine(LEAD, 'a.wav', 'empty', 80)).toBe('rejected  a.wav  empty');
  });

  it('cuts the name first, keeping its end, then the reason once the name is short', () => {
    expect(fitProblemLine(LEAD, NAME, 'not a WAV or MP3 file', 60)).toBe(
      'rejected  …MMMMMMMMMMMMMMMMMMMMMM.wav  not a WAV or MP3 file',
    );
    expect(fitProblemLine(LEAD, NAME, 'not a WAV or MP3 file', 50)).toBe(
      'rejected  …MMMMMMMMMMMMMMMMMMM.wav  not a WAV or …',
    );
    // Less than SHORT_REASON_COLUMNS of the reason would be left: it goes under the name.
    expect(fitProblemLine(LEAD, NAME, 'not a WAV or MP3 file', 45)).toBe(
      `rejected  …${'M'.repeat(30)}.wav\n  not a WAV or MP3 file`,
    );
  });

  it('never goes over the width, even narrower than the status and a short name', () => {
    for (let columns = 1; columns <= 80; columns++) {
      const line = fitProblemLine(LEAD, NAME, 'not a WAV or MP3 file', columns);
      for (const row of line.split('\n')) expect(columnsOf(row)).toBeLessThanOrEqual(columns);
    }
    expect(fitProblemLine(LEAD, NAME, 'empty', 20)).toBe('rejected  …MMMMM.wav\n  empty');
  });

  it('gives a reason that would show less than a word beside a short name a row of its own', () => {
    expect(fitProblemLine(LEAD, 'a.wav', 'not a WAV or MP3 file', 20)).toBe(
      'rejected  a.wav\n  not a WAV or MP3 …',
    );
  });

  it('in a narrow terminal, keeps the ends of two names that share their folders, the reason on its own row', () => {
    const folder = 'in/2024-spring-campaign/field-interviews';
    const reason = 'not a WAV or MP3 file';
    const at = (columns: number) =>
      ['01', '02'].map((n) => fitProblemLine(LEAD, `${folder}/call-${n}.wav`, reason, columns));
    expect(at(20)).toEqual([
      'rejected  …ll-01.wav\n  not a WAV or MP3 …',
      'rejected  …ll-02.wav\n  not a WAV or MP3 …',
    ]);
    expect(at(30)).toEqual([
      'rejected  in/2024…/call-01.wav\n  not a WAV or MP3 file',
      'rejected  in/2024…/call-02.wav\n  not a WAV or MP3 file',
    ]);
    for (let columns = 1; columns <= 40; columns++)
      for (const line of at(columns))
        for (const row of line.split('\n')) expect(columnsOf(row)).toBeLessThanOrEqual(columns);
  });

  it('keeps the file name whole when only the folders need to give way', () => {
    expect(fitProblemLine(LEAD, 'in/2024-spring-campaign/field-interviews/call-01.wav', 'empty', 50)).toBe(
      'rejected  in/2024-spring-campa…/call-01.wav  empty',
    );
  });
});
