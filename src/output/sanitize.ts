/**
 * The one home for making untrusted text (from the service, from file names) safe to show. Control
 * characters (C0 but tab, DEL, C1, bidirectional controls) are shown escaped, so no escape sequence,
 * carriage return or reordering from a server reaches the terminal; a very long message is cut,
 * saying so.
 */

/** Longest service-provided message shown whole, in characters. */
export const MAX_MESSAGE_CHARS = 300;

/**
 * DEL, the C1 block, the bidirectional controls (marks, embeddings, overrides, isolates: they
 * reorder what the terminal shows, so `a\u202Evaw.exe` reads as `aexe.wav`) and the invisible
 * characters that have no place in a name (zero-width space, word joiner, byte-order mark, soft
 * hyphen, Mongolian vowel separator, invisible operators, deprecated format controls, interlinear
 * annotation marks: they make `invoice\u200B.wav` read as `invoice.wav`; line and paragraph
 * separators), as a character class's body. The joiners U+200C/U+200D stay: Indic and Persian text
 * and emoji need them. With C0 but tab, every character shown escaped; JSON.stringify escapes C0
 * itself.
 */
export const SHOWN_ESCAPED_PAST_C0 =
  '\\u007f-\\u009f\\u00ad\\u061c\\u180e\\u200b\\u200e\\u200f\\u2028-\\u202e\\u2060-\\u2064\\u2066-\\u206f\\ufeff\\ufff9-\\ufffb';
/**
 * Half of a surrogate pair with no other half: it cannot be written as UTF-8, so a terminal got
 * U+FFFD in its place, and a name shown that way cannot be typed back. Shown escaped (`\\ud800`).
 */
const LONE_SURROGATE = '[\\ud800-\\udbff](?![\\udc00-\\udfff])|(?<![\\ud800-\\udbff])[\\udc00-\\udfff]';
const CONTROL = new RegExp(`[\\u0000-\\u0008\\u000a-\\u001f${SHOWN_ESCAPED_PAST_C0}]|${LONE_SURROGATE}`, 'g');

const HAS_LONE_SURROGATE = new RegExp(LONE_SURROGATE);

/** Whether `text` holds a lone surrogate: text no terminal, URL or file name can carry as it is. */
export function hasLoneSurrogate(text: string): boolean {
  return HAS_LONE_SURROGATE.test(text);
}

/** `ESC[2J` becomes `\x1b[2J`, CR `\r`, LF `\n`, U+202E `\u202e`, a lone U+D800 `\ud800`; everything else is kept. */
export function escapeControls(text: string): string {
  return text.replace(CONTROL, (char) => {
    if (char === '\n') return '\\n';
    if (char === '\r') return '\\r';
    const code = char.charCodeAt(0);
    return code > 0xff
      ? `\\u${code.toString(16).padStart(4, '0')}`
      : `\\x${code.toString(16).padStart(2, '0')}`;
  });
}

/** Cuts `text` to `max` characters, saying how much was left out. */
export function truncate(text: string, max = MAX_MESSAGE_CHARS): string {
  if (text.length <= max) return text;
  // Never between the halves of a pair (an emoji): that would leave a lone surrogate.
  const cut = /[\ud800-\udbff]/.test(text.charAt(max - 1)) ? max - 1 : max;
  return `${text.slice(0, cut)}… (${text.length - cut} more characters)`;
}

/** For a terminal, a plain line or a TSV field: control characters escaped, tabs as spaces. */
export function displayText(text: string): string {
  return escapeControls(text).replace(/\t/g, ' ');
}

/** Longest media type an error quotes: a header may run to 16 KiB, and it lands in the journal too. */
const MAX_CONTENT_TYPE_CHARS = 80;

/** An answer's Content-Type as an error quotes it: its media type alone, escaped and cut. */
export function shownContentType(header: string): string {
  return truncate(displayText(header.split(';')[0]?.trim() ?? ''), MAX_CONTENT_TYPE_CHARS);
}
