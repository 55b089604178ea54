import fg from 'fast-glob';
import { describe, expect, it } from 'vitest';
import { withBracketedQuestionMarks } from '../../src/redact/glob-pattern.js';
import { tempDirPerTest, touchFiles } from '../helpers/cli.js';

const dir = tempDirPerTest('vredact-glob-pattern-');

describe('withBracketedQuestionMarks', () => {
  it('writes each ? wildcard as brackets, a first character of a name never a dot', () => {
    expect(withBracketedQuestionMarks('calls/2026-0?/*.wav')).toBe('calls/2026-0[^/]/*.wav');
    expect(withBracketedQuestionMarks('?b/a??.wav')).toBe('[^.]b/a[^/][^/].wav');
    expect(withBracketedQuestionMarks('x/{?a,b}/*.wav')).toBe('x/{[^.]a,b}/*.wav');
  });

  it('leaves alone an escaped ?, one in brackets and the extglob ?(…)', () => {
    for (const pattern of ['a\\?/*.wav', 'a[?]/*.wav', 'a[]?]/*.wav', 'a[!?]/*.wav', '?(a|b)/*.wav']) {
      expect(withBracketedQuestionMarks(pattern)).toBe(pattern);
    }
    expect(withBracketedQuestionMarks('a[?/b?')).toBe('a[[^/]/b[^/]');
  });

  it('matches what the pattern matched in a last name, names starting with a dot included', async () => {
    await touchFiles(dir.path, 'ab', '.b', 'a.b', 'abc', 'a?', 'b');
    for (const pattern of ['?b', 'a?b', 'a?', '??', 'a?*', '?']) {
      const options = { cwd: dir.path, dot: false, caseSensitiveMatch: true };
      const after = (await fg(withBracketedQuestionMarks(pattern), options)).sort();
      expect(after, pattern).toEqual((await fg(pattern, options)).sort());
    }
  });
});
