/**
 * Inputs whose outputs meet (`a.wav` and `a.mp3`; `A.WAV` and `a.wav` where the output folder ignores
 * letter case, see fs/letter-case.ts): each is rejected, naming the others.
 */
import { caseIgnored, foldLetterCase } from '../fs/letter-case.js';
import type { FoundFiles } from './found-files.js';

const OTHER_UNICODE_FORM = '(the same name, its accents written in the other Unicode form, NFC or NFD)';

/** Where the output folder ignores letter case (see fs/letter-case.ts), `A.wav` and `a.wav` are one file. */
export function collisionKey(path: string, ignoresCase: boolean): string {
  const normalized = path.normalize('NFC');
  return ignoresCase ? foldLetterCase(normalized) : normalized;
}

/** Outputs that differ only in letter case where the folder could not be asked: how many, and two of them. */
export interface CaseUnknown {
  inputs: number;
  example: [string, string];
}

/** A group of rows on one output, split by exact output (their letter case kept). */
function byExactOutput(group: readonly number[], files: FoundFiles): number[][] {
  const split = new Map<string, number[]>();
  for (const row of group) {
    const key = collisionKey(files.at(row).outputRel, false);
    split.set(key, [...(split.get(key) ?? []), row]);
  }
  return [...split.values()];
}

/**
 * Rejects the rows of each group on one output (met by their names folded, unless the folder is known
 * to keep case apart). Where `ignoresCase` is undefined, the system's default decides, and the
 * outputs that differ only in case are counted: a dry run says what it cannot know.
 */
export function rejectMeetings(
  groups: Iterable<readonly number[]>,
  files: FoundFiles,
  ignoresCase: boolean | undefined,
): CaseUnknown | undefined {
  const ignored = caseIgnored(ignoresCase);
  let caseUnknown: CaseUnknown | undefined;
  for (const folded of groups) {
    const exact = ignoresCase === true ? [folded] : byExactOutput(folded, files);
    if (ignoresCase === undefined && exact.length > 1) {
      const [first = 0, second = 0] = exact.map((group) => group[0] ?? 0);
      caseUnknown ??= { inputs: 0, example: [files.at(first).display, files.at(second).display] };
      caseUnknown.inputs += folded.length;
    }
    for (const group of ignored ? [folded] : exact) if (group.length > 1) rejectMeeting(group, files);
  }
  return caseUnknown;
}

/** Rows on one output: each is rejected, naming the others and what to do. */
function rejectMeeting(group: readonly number[], files: FoundFiles): void {
  const shown = group.map((row) => files.at(row).display);
  const renameStep = group.length === 2 ? 'rename one of them' : 'rename all but one of them';
  group.forEach((row, at) => {
    const own = shown[at]?.normalize('NFC');
    // `café.wav` composed and decomposed look alike: "same output as café.wav" read as itself.
    const others = shown
      .filter((_, other) => other !== at)
      .map((path) => (path.normalize('NFC') === own ? `${path} ${OTHER_UNICODE_FORM}` : path));
    files.reject(row, `same output ${files.at(row).outputDisplay} as ${others.join(', ')}; ${renameStep}`);
  });
}
