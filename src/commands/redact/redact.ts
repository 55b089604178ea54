import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import { runBatch } from '../../redact/batch.js';
import { readFilesFrom } from '../../redact/files-from.js';
import { createInterruptController, listenForInterrupts } from '../../redact/interrupt.js';
import { parseRedactOptions } from '../../redact/options.js';

const NULL_HINT = 'give the list too: find … -print0 | vredact redact -0 --files-from -';

export async function runRedact(
  ctx: Context,
  args: string[],
  flags: Record<string, unknown>,
): Promise<number> {
  const parsed = parseRedactOptions(flags, ctx.env);
  if (parsed.nullSeparated && !parsed.filesFrom) {
    throw new UsageError('-0 (--null) is about the --files-from list, and none was given', NULL_HINT);
  }
  const listed = parsed.filesFrom
    ? await readFilesFrom(parsed.filesFrom, ctx.cwd, ctx.streams.stdin, parsed.nullSeparated)
    : [];
  if (args.length === 0 && !parsed.filesFrom) {
    throw new UsageError(
      'no inputs',
      'name files, folders or glob patterns, or give a list with --files-from',
    );
  }
  const controller = createInterruptController();
  const dispose = listenForInterrupts(controller, ctx.io, ctx.log, parsed.dryRun);
  try {
    return await runBatch(ctx, { args, listed, options: parsed }, controller.signals);
  } finally {
    dispose();
  }
}
