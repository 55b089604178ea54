import { describe, expect, it } from 'vitest';
import type { Outcome } from '../../src/redact/outcome.js';
import { ProblemList } from '../../src/redact/problem-list.js';

const rejected = (input: string): Outcome =>
  ({ input, output: '', status: 'rejected', reason: 'not a WAV or MP3 file' }) as Outcome;

describe('the problem list', () => {
  it('lists the files of one kind by path, whatever order they ended in', () => {
    const list = new ProblemList();
    for (const input of ['in/c.wav', 'in/a.wav', 'in/b.wav']) list.add(rejected(input));
    list.add({ input: 'in/z.wav', output: 'out/z.wav', status: 'failed', reason: 'cut short' } as Outcome);
    expect(list.listed().shown.map((outcome) => outcome.input)).toEqual([
      'in/z.wav',
      'in/a.wav',
      'in/b.wav',
      'in/c.wav',
    ]);
  });
});
