import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';

/** Placeholder until the journal reader lands; the command and its options are declared in src/cli/. */
export async function runStatus(
  _ctx: Context,
  _args: string[],
  _flags: Record<string, unknown>,
): Promise<number> {
  throw new UsageError('vredact status is not yet implemented');
}
