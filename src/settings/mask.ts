/** Shorter tokens are shown as an ellipsis alone. */
export const MIN_SHOWN_TOKEN = 12;

/**
 * Shows a token as its prefix (up to the first `_`, at most 3 characters) and its last four
 * characters: `vr_…9f3a`. Short tokens show nothing but the ellipsis, so a guessable secret
 * is never half-printed.
 */
export function maskToken(token: string | undefined | null): string {
  if (!token) return '';
  if (token.length < MIN_SHOWN_TOKEN) return '…';
  const underscore = token.indexOf('_');
  const prefix = underscore > 0 && underscore <= 3 ? token.slice(0, underscore + 1) : '';
  return `${prefix}…${token.slice(-4)}`;
}

/**
 * Shortest run of a secret beside an ellipsis that is masked as the secret. A name or message cut to
 * fit a line (`…op_0123456789abcdef.wav`, `vr_live_01…`) keeps a part of a token that no whole-token
 * search finds; beside the `…` that cut it, a run longer than the four characters a mask shows is
 * taken for one. Elsewhere a run is left: a test token may hold a word vredact writes.
 */
export const MIN_CUT_PART = 6;

const ELLIPSIS = '…';

/** The longest run of `secret` that `text` has from `start`, going forward (+1) or back (-1). */
function runOf(text: string, secret: string, start: number, step: 1 | -1): number {
  let length = 0;
  for (;;) {
    const next = length + 1;
    const part = step === 1 ? text.slice(start, start + next) : text.slice(start - next, start);
    if (part.length < next || !secret.includes(part)) return length;
    length = next;
  }
}

/** `text` with every run of `secret` of at least MIN_CUT_PART characters beside an ellipsis masked. */
function maskCutParts(text: string, secret: string): string {
  if (!text.includes(ELLIPSIS) || secret.length < MIN_CUT_PART) return text;
  const masked = maskToken(secret);
  let out = '';
  let from = 0;
  for (let at = text.indexOf(ELLIPSIS); at !== -1; at = text.indexOf(ELLIPSIS, at + 1)) {
    if (at < from) continue;
    const before = runOf(text, secret, at, -1);
    const after = runOf(text, secret, at + 1, 1);
    if (before >= MIN_CUT_PART) out += `${text.slice(from, at - before)}${masked}`;
    else out += text.slice(from, at);
    out += ELLIPSIS;
    from = at + 1;
    if (after >= MIN_CUT_PART) {
      out += masked;
      from += after;
    }
  }
  return out + text.slice(from);
}

/** Replaces every occurrence of the secrets in `text`, and every run of one cut short, with their masked form. */
export function redactSecrets(text: string, secrets: ReadonlyArray<string | undefined>): string {
  let out = text;
  for (const secret of secrets) {
    if (secret && secret.length >= 4) out = maskCutParts(out, secret).split(secret).join(maskToken(secret));
  }
  return out;
}
