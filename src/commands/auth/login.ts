import type { Context } from '../../context.js';
import { ExitCode, UsageError } from '../../errors.js';
import { maskToken } from '../../settings/mask.js';
import { text } from 'node:stream/consumers';
import { promptSecret } from './prompt-secret.js';

/** Reads a token, checks it with `GET /api/jobs`, and stores it only when the service accepts it. */
export async function runLogin(
  ctx: Context,
  _args: string[],
  options: { tokenStdin?: boolean },
): Promise<number> {
  let token: string;
  if (options.tokenStdin) {
    token = (await text(ctx.streams.stdin)).trim();
  } else if (ctx.streams.stdin.isTTY) {
    const typed = await promptSecret(ctx.streams, 'Paste your usage token (it will not be shown): ');
    // Ctrl-C at the prompt: an interrupt like any other, nothing stored.
    if (typed === undefined) return ExitCode.interrupted;
    token = typed;
  } else {
    throw new UsageError(
      'standard input is not a terminal',
      'pipe the token in with `vredact login --token-stdin`',
    );
  }
  if (!token) throw new UsageError('no token was given');
  const client = await ctx.clientWithToken(token);
  try {
    // A refused token throws AuthenticationError / PermissionDeniedError (exit 3): nothing is stored.
    await client.listJobs();
  } finally {
    await client.close();
  }
  await ctx.config.set('token', token);
  ctx.log.info(
    `Logged in to ${new URL(ctx.settings.baseUrl ?? '').host}; token ${maskToken(token)} stored in ${ctx.config.path}`,
  );
  if (ctx.env.VREDACT_TOKEN) ctx.log.warn('VREDACT_TOKEN is set and takes precedence over the stored token');
  return ExitCode.ok;
}
