import type { Context } from '../../context.js';
import { ExitCode } from '../../errors.js';

export async function runLogout(ctx: Context): Promise<number> {
  if (ctx.config.get('token') === undefined) {
    ctx.log.info('No token was stored.');
  } else {
    await ctx.config.delete('token');
    ctx.log.info(`Token removed from ${ctx.config.path}`);
  }
  // Logged out in the file only: every command would still send the environment's token.
  if (ctx.env.VREDACT_TOKEN)
    ctx.log.warn('VREDACT_TOKEN is set: commands still use its token until it is unset');
  return ExitCode.ok;
}
