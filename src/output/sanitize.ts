/**
 * The one home for making untrusted text (from the service, from file names) safe to show. Control
 * characters (C0 but tab, DEL, C1) are shown escaped, so no escape sequence or carriage return from a
 * server reaches the terminal; a very long message is cut, saying so.
 */

/** Longest service-provided message shown whole, in characters. */
export const MAX_MESSAGE_CHARS = 300;

// C0 controls except tab, DEL, and the C1 block.
const CONTROL = /[\u0000-\u0008\u000a-\u001f\u007f-\u009f]/g;

/** `ESC[2J` becomes `\x1b[2J`, CR `\r`, LF `\n`; everything else is kept. */
export function escapeControls(text: string): string {
  return text.replace(CONTROL, (char) => {
    if (char === '\n') return '\\n';
    if (char === '\r') return '\\r';
    return `\\x${char.charCodeAt(0).toString(16).padStart(2, '0')}`;
  });
}

/** Cuts `text` to `max` characters, saying how much was left out. */
export function truncate(text: string, max = MAX_MESSAGE_CHARS): string {
  if (text.length <= max) return text;
  return `${text.slice(0, max)}… (${text.length - max} more characters)`;
}

/** For a terminal, a plain line or a TSV field: control characters escaped, tabs as spaces. */
export function displayText(text: string): string {
  return escapeControls(text).replace(/\t/g, ' ');
}
