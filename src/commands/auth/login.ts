import type { Context } from '../../context.js';
import { type ApiError, isTokenRefused } from '../../api/errors.js';
import { CliError, ExitCode, UsageError } from '../../errors.js';
import { displayBaseUrl } from '../../settings/base-url.js';
import { startSpinner } from '../../output/spinner.js';
import { maskToken } from '../../settings/mask.js';
import { sameService } from '../../settings/token-service.js';
import { placedConfigPath } from '../../settings/config-store.js';
import { requireServiceUrl } from '../../settings/settings.js';
import { readStdinValue } from '../../settings/stdin-value.js';
import { requireSendableToken } from '../../settings/token.js';
import { promptSecret, TOKEN_QUESTION } from './prompt-secret.js';

/** Reads a token, checks it with `GET /api/jobs`, and stores it only when the service accepts it. */
export async function runLogin(
  ctx: Context,
  _args: string[],
  options: { tokenStdin?: boolean },
): Promise<number> {
  // Said before the token is asked for and sent: a token checked and then not stored helps no one.
  placedConfigPath(ctx.config);
  let token: string;
  const fromFlag = ctx.settings.sources.token === 'flag' ? ctx.settings.token : undefined;
  if (fromFlag !== undefined && options.tokenStdin) {
    throw new UsageError(
      'give the token one way: --token or --token-stdin, not both',
      'prefer --token-stdin (or the prompt of `vredact login`): ps shows --token',
    );
  }
  // A token pasted with no service to check it against was asked for in vain.
  requireServiceUrl(ctx.settings);
  if (fromFlag !== undefined) {
    // Taken as the token to check and store: it was taken, then ignored for the prompt.
    token = fromFlag;
  } else if (options.tokenStdin) {
    token = await readStdinValue(ctx.streams.stdin, 'a token');
  } else if (ctx.streams.stdin.isTTY) {
    const typed = await promptSecret(ctx.streams, TOKEN_QUESTION);
    // Ctrl-C at the prompt: an interrupt like any other, nothing stored.
    if (typed === undefined) return ExitCode.interrupted;
    token = typed;
  } else {
    throw new UsageError(
      'standard input is not a terminal',
      'pipe the token in with `vredact login --token-stdin`',
    );
  }
  if (!token)
    throw new UsageError(
      'no token was given',
      'pipe the token in alone (`vredact login --token-stdin < token.txt`), or run `vredact login` at a terminal',
    );
  // Checked as the token given here, not as the one the settings would have used.
  requireSendableToken(token);
  const client = await ctx.clientWithToken(token);
  // A slow or retried check left a person at an empty line after the prompt, not knowing it had begun.
  const spinner = await startSpinner(ctx.io, `Checking the token with ${serviceHost(ctx.settings.baseUrl)}`);
  try {
    // The answer is read to its end, as any listing is, but no job is kept.
    await client.eachJob(() => ({ add() {} })).finally(() => spinner.stop());
  } catch (error) {
    // Said as what it is for this command: the API error names "listing jobs" and says to log in.
    if (isTokenRefused(error)) throw tokenRefused(error as ApiError, ctx.settings.baseUrl);
    // Any other failure (a 500, no connection) leaves the token unchecked: said so, with its hint.
    if (error instanceof CliError)
      throw new CliError(
        `the token could not be checked, so it was not stored: ${error.message}`,
        error.exitCode,
        error.hint,
      );
    throw error;
  } finally {
    await client.close();
  }
  const service = tokenServiceChange(ctx);
  // One write: a crash or a full disk between two left the token tied to the old service, or to none.
  await ctx.config
    .setAll({ token, ...(service && { 'base-url': service.baseUrl }) })
    .catch((error: unknown) => {
      if (!(error instanceof UsageError)) throw error;
      throw new UsageError(
        `the service accepted the token, but it was not stored: ${error.message}`,
        error.hint,
      );
    });
  ctx.log.info(
    `Logged in to ${serviceHost(ctx.settings.baseUrl)}; token ${maskToken(token)} stored in ${ctx.config.path}`,
  );
  if (service) ctx.log.info(service.line);
  if (ctx.env.VREDACT_TOKEN) ctx.log.warn('VREDACT_TOKEN is set and takes precedence over the stored token');
  return ExitCode.ok;
}

/**
 * The stored token goes only to the config file's base-url (token-service.ts): a token checked with
 * another service (`--base-url`, VREDACT_BASE_URL) makes that one the config file's, or it would be
 * sent to the old one and refused there. With no base-url in the file, the checked one is stored
 * too: a token bound to nothing would go to whatever URL a later flag or environment names.
 * Undefined when the file's base-url is the checked one already.
 */
function tokenServiceChange(ctx: Context): { baseUrl: string; line: string } | undefined {
  const stored = ctx.config.get('base-url');
  const checked = ctx.settings.baseUrl ?? '';
  if (stored !== undefined && sameService(stored, checked)) return undefined;
  const was = stored === undefined ? 'it had none' : `it was ${displayBaseUrl(stored)}`;
  return {
    baseUrl: checked,
    line: `base-url set to ${displayBaseUrl(checked)} in the config file (${was}): the stored token is for it`,
  };
}

/** The service's host as login names it (the URL was checked before the token was asked for). */
function serviceHost(baseUrl: string | undefined): string {
  return baseUrl ? new URL(baseUrl).host : 'the service';
}

function tokenRefused(error: ApiError, baseUrl: string | undefined): CliError {
  const said = error.serviceMessage ? `: ${error.serviceMessage}` : '';
  const host = serviceHost(baseUrl);
  return new CliError(
    `the service refused this token (${error.status ?? 'no status'}${said}); nothing was stored`,
    ExitCode.auth,
    `check that the whole token was pasted, and that it is one for ${host}`,
  );
}
