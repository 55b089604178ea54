import { describe, expect, test } from 'vitest';
import {
  assertJobId,
  fileNameProblem,
  jobIdProblem,
  jobPath,
  requireUserJobId,
  UnsafeIdentifierError,
} from '../../src/api/identifiers.js';

describe('identifiers: one rule for what goes into a request', () => {
  test.each([
    '',
    ' ',
    '.',
    '..',
    'a/b',
    '../x',
    'a\\b',
    'a?b=1',
    'a#frag',
    '%2e%2e',
    '..%2F..',
    '%5c',
    'a%252f',
    'a\u001b[2J',
    'a\rb',
    'a\u009bb',
    'x'.repeat(1025),
  ])('the job id %j is refused', (id) => {
    expect(jobIdProblem(id)).toBeDefined();
    expect(() => assertJobId(id, 'reading a job')).toThrow(UnsafeIdentifierError);
    expect(() => requireUserJobId(id)).toThrow(expect.objectContaining({ exitCode: 2 }));
  });

  test.each(['55e5c1b0-aa61-4c0f-9c7a-0b1f2e3d4c5b', '42', 'job_42', 'a.b', 'x%41'])(
    'the job id %j is used, encoded',
    (id) => {
      expect(jobIdProblem(id)).toBeUndefined();
      expect(jobPath(id, '/content', 'x')).toBe(`/api/jobs/${encodeURIComponent(id)}/content`);
    },
  );

  test('a refusal shows the id escaped, never raw control characters', () => {
    expect(() => requireUserJobId('\u001b]0;owned\u0007')).toThrow(/"\\x1b\]0;owned\\x07"/);
  });

  test('file names travel in a body: a path is allowed, empty, dot names and control characters are not', () => {
    expect(fileNameProblem('calls/a.wav')).toBeUndefined();
    expect(fileNameProblem('a.wav')).toBeUndefined();
    for (const bad of ['', '.', '..', 'a\u001b[2J.wav', 'a\nb.wav'])
      expect(fileNameProblem(bad)).toBeDefined();
  });
});

describe('identifiers that are not valid Unicode', () => {
  test('a job id or a file name with a lone surrogate is refused: it cannot be put in a URL nor typed back', () => {
    // encodeURIComponent throws on it: every poll of such a job failed with "URI malformed".
    expect(jobIdProblem('ab\ud800cd')).toBe('it is not valid Unicode (a lone surrogate)');
    expect(jobIdProblem('\udc00')).toBe('it is not valid Unicode (a lone surrogate)');
    expect(fileNameProblem('a\ud800.wav')).toBe('it is not valid Unicode (a lone surrogate)');
    expect(() => jobPath('ab\ud800cd', '/content', 'job')).toThrow(UnsafeIdentifierError);
    expect(jobIdProblem('job-\u{1f600}')).toBeUndefined();
  });
});
