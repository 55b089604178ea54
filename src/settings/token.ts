/**
 * The one check of a usage token's characters, for `login`, `config set token`, `--token`,
 * VREDACT_TOKEN and the config file alike. A token travels as `Authorization: Bearer <token>`, which
 * cannot carry a line break, another control character or a character past U+00FF: undici refuses
 * such a request, and that reads as a network error, retried four times, then "check your network".
 * Two lines piped into `login --token-stdin` or `config set token -` give exactly that. A bearer
 * token is one word of ASCII (RFC 6750's b64token): one with a space or a tab inside, or a character
 * past ASCII, or a quote mark around it, is sent but can never match, and would fail every request as
 * a refused token.
 */
import { UsageError } from '../errors.js';
import { fromOrigin } from './setting-origin.js';
import type { SettingSource } from './settings.js';

/** Why `token` cannot be sent, or undefined when it can; never repeats the token. */
export function tokenProblem(token: string): string | undefined {
  if (token === '') return 'it is empty';
  if (/[\r\n]/.test(token)) return 'it holds a line break';
  if (/\s/.test(token)) return 'it holds whitespace (a space or a tab), and a token is one word';
  if (/[\u0000-\u001f\u007f]/.test(token)) return 'it holds a control character';
  if (/[^\u0000-\u007f]/.test(token)) return 'it holds a character that is not ASCII, as no token does';
  // Copied with its quotes from a `.env` line or JSON (some .env readers keep them): b64token has none.
  if (/^["'`]|["'`]$/.test(token))
    return 'it begins or ends with a quote mark, which no token does (was it copied with its quotes?)';
  return undefined;
}

/**
 * What to do about a token the service refused (401, 403), for where it came from: a new
 * `vredact login` cannot mend one from VREDACT_TOKEN or --token, which take precedence over it.
 * Undefined: a token whose source is not known (the general advice).
 */
export function refusedTokenHint(source: SettingSource | undefined): string {
  switch (source) {
    case 'flag':
      return 'the token comes from --token: give the right one, or leave --token out to use VREDACT_TOKEN or the stored token';
    case 'env':
      return 'the token comes from VREDACT_TOKEN: correct it, or unset it to use the one `vredact login` stores';
    case 'config':
      return 'run `vredact login` (or `vredact config set token -`) with a valid token, then try again';
    default:
      return 'run `vredact login` (or check VREDACT_TOKEN) and try again';
  }
}

/**
 * `token` when it can be sent; else a usage error (exit 2) before any request, naming where the token
 * came from (nothing for one given to the command itself: `login`, `config set`).
 */
export function requireSendableToken(token: string, source: SettingSource = 'default'): string {
  const problem = tokenProblem(token);
  if (problem)
    throw new UsageError(
      `the usage token${fromOrigin('token', source)} cannot be used: ${problem}`,
      'copy the token again, whole and alone, as the service gave it: `vredact login`, or `vredact config set token -`',
    );
  return token;
}
