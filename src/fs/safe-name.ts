import { SHOWN_ESCAPED_PAST_C0 } from '../output/sanitize.js';

// C0, DEL, C1 and the bidirectional controls: none belongs in a file name, and a bidi override on
// disk makes a file manager show `call\u202Evaw.exe` as "callexe.wav".
const UNSHOWABLE = new RegExp(`[\\u0000-\\u001f${SHOWN_ESCAPED_PAST_C0}]`, 'g');

/**
 * Reduces a file name that came from the service (or from a user's argument that is sent to it) to
 * a plain base name, so that nothing is ever written outside the output folder: no separators of
 * either platform, no `.`/`..`, no control or bidirectional characters. Undefined when nothing
 * usable remains.
 */
export function safeBaseName(name: string): string | undefined {
  const base = name.split(/[\\/]/).pop() ?? '';
  const cleaned = base.replace(UNSHOWABLE, '').trim();
  if (cleaned === '' || cleaned === '.' || cleaned === '..') return undefined;
  return cleaned;
}
