/** The name an upload carries: unique to its input and attempt, so that recovery can look for exactly it. */
import { basename, extname } from 'node:path';
import { randomHex } from '../random-hex.js';

/** Characters no header may carry: a multipart part naming a file with one is refused (400). */
const NOT_IN_A_HEADER = /[\u0000-\u001f\u007f-\u009f]/g;

/**
 * `<stem>.<8 hex>.wav` or `.mp3`: unique to the input and the attempt, so recovery can look for
 * exactly it. The extension is what the content is, in lower case (`call.mp3` holding a WAV goes as
 * `call.<hex>.wav`, `A.WAV` as `A.<hex>.wav`): a service that goes by the name reads it right, and
 * the client types the upload by it. Control characters in the name (an escape sequence in a file
 * name) are sent as `_`.
 */
export function uploadNameFor(path: string, format: 'WAV' | 'MP3', tag = randomHex(8)): string {
  const name = basename(path).replace(NOT_IN_A_HEADER, '_');
  const ext = extname(name);
  const stem = ext && ext !== name ? name.slice(0, -ext.length) : name;
  return `${stem}.${tag}.${format.toLowerCase()}`;
}

/** What an upload's content was, as its name says (see uploadNameFor): an earlier run's job goes by it. */
export function uploadFormat(uploadName: string): 'WAV' | 'MP3' {
  return extname(uploadName).toLowerCase() === '.mp3' ? 'MP3' : 'WAV';
}

/** A tag (uploadNameFor) ending a stem within a listed name: `.` and 8 hex digits, no more. */
const TAG_END = /\.[0-9a-f]{8}(?![0-9a-f])/g;

/**
 * The upload names a listed file is named after: a service may list its result only, named from the
 * upload's (`a.1f2e3d4c_redacted.wav`, `results/x/a.1f2e3d4c.out.wav`), and its unique stem (the
 * tagged one of uploadNameFor, in the name's last path segment) names that upload, as it does the
 * result among a job's files (pick-result.ts). The stem ends at the last tag only: an upload's stem
 * may hold an earlier upload's tag (a result downloaded under the service's name and sent in its
 * turn), and a job named after it is never that earlier upload's. Both extensions an upload may have
 * are given: which one was sent is the journal's to say.
 */
export function uploadNamesIn(fileName: string): string[] {
  const segment = fileName.slice(fileName.lastIndexOf('/') + 1);
  let stemEnd = -1;
  for (const match of segment.matchAll(TAG_END)) stemEnd = match.index + match[0].length;
  if (stemEnd === -1) return [];
  const stem = segment.slice(0, stemEnd);
  return [`${stem}.wav`, `${stem}.mp3`];
}
