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
