import fg from 'fast-glob';
import { describe, expect, it } from 'vitest';
import { globBase, withBracketedQuestionMarks } from '../../src/redact/glob-pattern.js';
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

describe('globBase', () => {
  it('finds the fixed part of a pattern', async () => {
    expect(await globBase('calls/**/*.wav')).toBe('calls');
    expect(await globBase('calls/2026/1?/*.wav')).toBe('calls/2026');
    expect(await globBase('x/{a,b}/*.wav')).toBe('x');
    expect(await globBase('*.wav')).toBe('.');
    expect(await globBase('/srv/rec/**/*.mp3')).toBe('/srv/rec');
  });

  it('reads an escaped glob character in the fixed part as the character itself', async () => {
    expect(await globBase('take\\[1\\]/**/*.wav')).toBe('take[1]');
    expect(await globBase('calls/take\\[1\\]/a/*.wav')).toBe('calls/take[1]/a');
    expect(await globBase('a\\*b/c\\{x,y\\}/*.wav')).toBe('a*b/c{x,y}');
    // An escaped character beside a wildcard leaves that folder out of the fixed part.
    expect(await globBase('x/take\\[1\\]*/*.wav')).toBe('x');
    expect(await globBase('tak?\\[1\\]/a/*.wav')).toBe('.');
  });
});
