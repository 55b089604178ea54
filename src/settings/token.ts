/**
 * The one check of a usage token's characters. A token travels in the Authorization header, which
 * cannot carry a line break, another control character or a character past U+00FF: undici refuses
 * such a request, and that reads as a network error, retried four times, then "check your network".
 * Two lines piped into `login --token-stdin` or `config set token -` give exactly that.
 */
import { UsageError } from '../errors.js';
import type { SettingSource } from './settings.js';

const NOT_IN_A_HEADER = /[\u0000-\u0008\u000a-\u001f\u007f]|[^\u0000-\u00ff]/;

/** Why `token` cannot be sent, or undefined when it can; never repeats the token. */
export function tokenProblem(token: string): string | undefined {
  if (/[\r\n]/.test(token)) return 'it holds a line break';
  if (NOT_IN_A_HEADER.test(token))
    return 'it holds a control character or a character an HTTP header cannot carry';
  return undefined;
}

const ORIGIN: Record<SettingSource, string> = {
  flag: ' (from --token)',
  env: ' (from VREDACT_TOKEN)',
  config: ' (from the config file)',
  default: '',
};

/**
 * `token` when it can be sent; else a usage error (exit 2) before any request, naming where the token
 * came from (nothing for one given to the command itself: `login`, `config set`).
 */
export function requireSendableToken(token: string, source: SettingSource = 'default'): string {
  const problem = tokenProblem(token);
  if (problem)
    throw new UsageError(
      `the usage token${ORIGIN[source]} cannot be used: ${problem}`,
      'give the token alone, on one line: `vredact login`, or `vredact config set token -`',
    );
  return token;
}
