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

/** Replaces every occurrence of the secrets in `text` with their masked form. */
export function redactSecrets(text: string, secrets: ReadonlyArray<string | undefined>): string {
  let out = text;
  for (const secret of secrets) {
    if (secret && secret.length >= 4) out = out.split(secret).join(maskToken(secret));
  }
  return out;
}
