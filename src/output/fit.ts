import { createRequire } from 'node:module';
import { sep } from 'node:path';
import type cliTruncate from 'cli-truncate';
import type stringWidth from 'string-width';

/**
 * string-width and cli-truncate (with slice-ansi) cost about 50 ms of CPU to load, on every run,
 * for text that is almost always narrow. The functions below are synchronous (a status line is
 * redrawn in a timer), so the libraries are loaded with require() (an ES module may be required
 * from Node.js 20.19) the first time a wide or combining character is seen.
 */
const require = createRequire(import.meta.url);
let loaded: { stringWidth: typeof stringWidth; cliTruncate: typeof cliTruncate } | undefined;
function widthLibraries(): NonNullable<typeof loaded> {
  loaded ??= {
    stringWidth: (require('string-width') as { default: typeof stringWidth }).default,
    cliTruncate: (require('cli-truncate') as { default: typeof cliTruncate }).default,
  };
  return loaded;
}

/**
 * Text made only of characters below U+0300 (ASCII, Latin-1, Latin Extended) takes one column a
 * character. string-width's grapheme pass costs about 2 ms for a new line, too much for a line
 * redrawn ten times a second, so it is kept for text that needs it (wide and combining characters).
 */
const NARROW = /^[\u0020-\u007e\u00a0-\u02ff]*$/;

/** Terminal columns `text` takes (wide characters count twice). */
export function columnsOf(text: string): number {
  return NARROW.test(text) ? text.length : widthLibraries().stringWidth(text);
}

/**
 * Cuts a line to `columns` terminal columns, ending it with `…` when cut, so that a line never
 * wraps. The text must already be escaped (see sanitize.ts).
 */
export function fitWidth(text: string, columns: number): string {
  return cut(text, columns, 'end');
}

/**
 * Cuts a path to `columns` terminal columns keeping its end, where two files of one folder differ:
 * the file name whole after as many of the first folders as fit (`in/2024…/call-01.wav`), or, when
 * the file name alone is too long, the end of the name (`…ll-01.wav`). A cut in the middle kept the
 * first folder and a few columns of the end, and in a narrow terminal two files read the same
 * (`in/…wav`). The text must already be escaped (see sanitize.ts).
 */
export function fitPath(path: string, columns: number): string {
  if (columnsOf(path) <= columns) return path;
  const folderEnd = Math.max(...SEPARATORS.map((separator) => path.lastIndexOf(separator)));
  const fileName = path.slice(folderEnd);
  const folderColumns = columns - columnsOf(fileName);
  if (folderEnd > 0 && folderColumns >= 1)
    return `${fitWidth(path.slice(0, folderEnd), folderColumns)}${fileName}`;
  return cut(path, columns, 'start');
}

/**
 * Cuts text to `columns` terminal columns keeping its start and its end (`2024-03-14_15…redacted.wav`),
 * where two names of one list tend to differ. The text must already be escaped (see sanitize.ts).
 */
export function fitMiddle(text: string, columns: number): string {
  return cut(text, columns, 'middle');
}

/**
 * Whether cli-table3's wrapping (0.6.5, `wrapOnWordBoundary: false`) would lose part of `text`: it
 * counts a line's characters, not its columns, so a line of wide characters came out twice too wide
 * and was cut with `…`, and it drops leading spaces. Such text is broken by columnPieces instead.
 */
export function tableWrapLoses(text: string): boolean {
  return !NARROW.test(text) || /^\s/.test(text);
}

/** Made when first needed: an Intl.Segmenter loads ICU's break data, about 2 MB, at every start. */
let graphemes: Intl.Segmenter | undefined;

/**
 * `text` broken into pieces of at most `columns` terminal columns, never inside a character (a wide
 * character, an emoji, a letter and its accents): the pieces joined are `text`.
 */
export function columnPieces(text: string, columns: number): string[] {
  const pieces: string[] = [];
  let piece = '';
  let used = 0;
  graphemes ??= new Intl.Segmenter(undefined, { granularity: 'grapheme' });
  for (const { segment } of graphemes.segment(text)) {
    const width = columnsOf(segment);
    if (used + width > columns && piece !== '') {
      pieces.push(piece);
      piece = '';
      used = 0;
    }
    piece += segment;
    used += width;
  }
  if (piece !== '' || pieces.length === 0) pieces.push(piece);
  return pieces;
}

/** What separates folders in a path shown (Windows takes both). */
const SEPARATORS = sep === '\\' ? ['/', '\\'] : ['/'];

function cut(text: string, columns: number, position: 'start' | 'middle' | 'end'): string {
  const width = Math.max(1, columns);
  if (columnsOf(text) <= width) return text;
  if (NARROW.test(text)) {
    const head = { start: 0, middle: Math.ceil((width - 1) / 2), end: width - 1 }[position];
    const tail = width - 1 - head;
    return `${text.slice(0, head)}…${tail > 0 ? text.slice(-tail) : ''}`;
  }
  const { cliTruncate } = widthLibraries();
  // cli-truncate keeps a wide character that straddles a cut, one column over: cut shorter.
  let result = cliTruncate(text, width, { position });
  for (let shorter = width - 1; shorter > 0 && columnsOf(result) > width; shorter--)
    result = cliTruncate(text, shorter, { position });
  return result;
}

/**
 * Joins the parts that fit in `columns`, leaving out the least important first (the higher its
 * `rank`, the sooner a part goes), then cuts what is left. Parts keep their order. A part of rank 0
 * is never left out: a line that shows some of what must be said and then `…` misleads no one, where
 * `✖ rejected 1` alone would hide the 20 files redacted.
 */
export function fitParts(
  parts: ReadonlyArray<{ text: string; rank: number }>,
  separator: string,
  columns: number,
): string {
  const kept = [...parts];
  const join = () => kept.map((part) => part.text).join(separator);
  while (kept.length > 1 && columnsOf(join()) > columns) {
    const worst = kept.reduce((a, b) => (b.rank > a.rank ? b : a));
    if (worst.rank === 0) break;
    kept.splice(kept.indexOf(worst), 1);
  }
  return fitWidth(join(), columns);
}
