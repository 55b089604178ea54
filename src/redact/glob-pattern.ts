/**
 * Patterns through fast-glob: the options vredact asks with, a pattern's fixed leading folder, and a
 * pattern as fast-glob can read it, its `?` wildcards written as bracket expressions. fast-glob
 * starts its walk from the pattern's leading part without glob characters, as glob-parent finds it,
 * and that one does not count `?` as one (fast-glob#380, is-glob#21): `calls/2026-0?/*.wav` was
 * walked from a folder named `calls/2026-0?`, matched nothing and was rejected, where the shell
 * matches `calls/2026-01/a.wav`.
 */
import type { Readable } from 'node:stream';
import type { Entry, Options as FastGlobOptions } from 'fast-glob';

/** A `?` as the first character of a name, which never matches a leading dot (as the shell's). */
const FIRST_CHARACTER = '[^.]';
/** A `?` further on in a name, which matches any character (picomatch keeps `/` out of both). */
const LATER_CHARACTER = '[^/]';

/** Characters after which a `?` begins a name, or an alternative that may begin one (`{?a,b}`). */
const NAME_STARTS_AFTER = new Set(['/', '{', ',', '(', '|']);

/** Where the bracket expression opening at `start` ends (its `]`), or -1 when `[` is a literal. */
function bracketEnd(pattern: string, start: number): number {
  let at = start + 1;
  if (pattern[at] === '!' || pattern[at] === '^') at++;
  // A `]` first in the brackets is one of their characters, not their end.
  if (pattern[at] === ']') at++;
  for (; at < pattern.length; at++) {
    if (pattern[at] === '\\') at++;
    else if (pattern[at] === ']') return at;
  }
  return -1;
}

/** `pattern` with each `?` wildcard written as a bracket expression that matches what it matches. */
export function withBracketedQuestionMarks(pattern: string): string {
  if (!pattern.includes('?')) return pattern;
  let out = '';
  for (let at = 0; at < pattern.length; at++) {
    const char = pattern[at] ?? '';
    if (char === '\\') {
      out += pattern.slice(at, at + 2);
      at++;
    } else if (char === '[' && bracketEnd(pattern, at) > at) {
      const end = bracketEnd(pattern, at);
      out += pattern.slice(at, end + 1);
      at = end;
    } else if (char === '?' && pattern[at + 1] !== '(') {
      const before = at === 0 ? '/' : (pattern[at - 1] ?? '');
      out += NAME_STARTS_AFTER.has(before) ? FIRST_CHARACTER : LATER_CHARACTER;
    } else {
      out += char;
    }
  }
  return out;
}

/** A character escaped with a backslash (`\[`): the character itself, never a glob character. */
const ESCAPED = /\\(.)/gsu;

/**
 * The fixed leading folder of a glob pattern, the one outputs mirror their paths below: every
 * `/`-separated segment before the first one with a glob character, its escapes read.
 * `calls/**\/*.wav` → `calls`; `x/{a,b}/*.wav` → `x`; `*.wav` → `.`;
 * `take\[1\]/**\/*.wav` → `take[1]`.
 */
export async function globBase(pattern: string): Promise<string> {
  const { default: fg } = await import('fast-glob');
  const fixed: string[] = [];
  for (const segment of pattern.split('/').slice(0, -1)) {
    // fast-glob's isDynamicPattern counts any backslash as a glob character: it is asked about the
    // segment without its escaped characters, which are literal whatever they are.
    if (segment !== '' && fg.isDynamicPattern(segment.replace(ESCAPED, ''))) break;
    fixed.push(segment.replace(ESCAPED, '$1'));
  }
  if (fixed.length === 0) return '.';
  if (fixed.length === 1 && fixed[0] === '') return '/';
  return fixed.join('/');
}

/**
 * How vredact asks fast-glob for a pattern's matches, one by one (objectMode), through `readdir`
 * (which notes the folders it cannot read and walks no loop).
 */
export function globOptions(
  cwd: string,
  readdir: NonNullable<FastGlobOptions['fs']>['readdir'],
): FastGlobOptions {
  return {
    cwd,
    // Not `absolute`: fast-glob turns every backslash of an absolute path into `/`, so a file named
    // `back\slash.wav` was found as `back/slash.wav`, which is not there.
    absolute: false,
    // Not `onlyFiles`: it drops a broken link or a FIFO named `x.wav` in silence, where the shell
    // passes it on. Every match but a folder's is found, to be rejected with its reason.
    onlyFiles: false,
    objectMode: true,
    dot: false,
    caseSensitiveMatch: true,
    followSymbolicLinks: true,
    unique: false,
    suppressErrors: true,
    fs: { readdir },
  };
}

/**
 * Tells `found` the path (relative to the options' cwd) of each match of `pattern` but a folder's, one
 * by one. `stop` (a first interrupt) ends it at once, rejecting with its reason: not at the next match,
 * which a folder slow to read (a network file system) may not give for long.
 */
export async function eachGlobMatch(
  glob: typeof import('fast-glob'),
  pattern: string,
  options: FastGlobOptions,
  stop: AbortSignal | undefined,
  found: (path: string) => void,
): Promise<void> {
  stop?.throwIfAborted();
  const stream = glob.stream(withBracketedQuestionMarks(pattern), options) as unknown as Readable;
  const onStop = () => stream.destroy(stop?.reason as Error);
  stop?.addEventListener('abort', onStop, { once: true });
  try {
    for await (const match of stream) {
      const entry = match as Entry;
      if (!entry.dirent.isDirectory()) found(entry.path);
    }
  } finally {
    stop?.removeEventListener('abort', onStop);
  }
}
