import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import { runBatch } from '../../redact/batch.js';
import { readFilesFrom } from '../../redact/files-from.js';
import { createInterruptController, type InterruptWords, listenForInterrupts } from '../../interrupt.js';
import { parseRedactOptions } from '../../redact/options.js';

const REDACT_WORDS: InterruptWords = {
  stopping: 'finishing the uploads in flight and recording pending jobs',
  again: ' (Ctrl-C again to abort them)',
  outputClosed: 'starting nothing new, finishing the uploads in flight',
};
/** A dry run has nothing in flight: it stops checking and ends. */
const DRY_RUN_WORDS: InterruptWords = {
  stopping: 'the dry run stops',
  again: '',
  outputClosed: 'the dry run stops',
};

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
  const dispose = listenForInterrupts(
    controller,
    ctx.io,
    ctx.log,
    parsed.dryRun ? DRY_RUN_WORDS : REDACT_WORDS,
  );
  try {
    return await runBatch(ctx, { args, listed, options: parsed }, controller.signals);
  } finally {
    dispose();
  }
}
