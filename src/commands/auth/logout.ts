import type { Context } from '../../context.js';
import { ExitCode } from '../../errors.js';

export async function runLogout(ctx: Context): Promise<number> {
  if (ctx.config.get('token') === undefined) {
    ctx.log.info('No token was stored.');
    return ExitCode.ok;
  }
  await ctx.config.delete('token');
  ctx.log.info(`Token removed from ${ctx.config.path}`);
  return ExitCode.ok;
}
