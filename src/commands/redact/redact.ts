import type { Context } from '../../context.js';
import { ExitCode, UsageError } from '../../errors.js';
import { runBatch } from '../../redact/batch.js';
import { readFilesFrom } from '../../redact/files-from.js';
import { interruptedBeforeDeciding } from '../../redact/json-summary.js';
import {
  createInterruptController,
  interruptedLine,
  type InterruptWords,
  listenForInterrupts,
} from '../../interrupt.js';
import { parseRedactOptions } from '../../redact/options.js';

const REDACT_WORDS: InterruptWords = {
  transfer: 'upload',
  rerun: 'send the files not yet done and collect the pending jobs (what is done is skipped)',
};
/** A dry run has nothing in flight: it stops checking and ends. */
const DRY_RUN_WORDS: InterruptWords = { transfer: undefined, rerun: 'check the inputs not yet checked' };

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
  if (args.length === 0 && !parsed.filesFrom) {
    throw new UsageError(
      'no inputs',
      'name files, folders or glob patterns, or give a list with --files-from',
    );
  }
  const words = parsed.dryRun ? DRY_RUN_WORDS : REDACT_WORDS;
  // Taken over before the list is read: reading standard input may wait for as long as its writer.
  const controller = createInterruptController();
  const dispose = listenForInterrupts(controller, ctx.io, ctx.log, words);
  try {
    const listed = parsed.filesFrom
      ? await untilStopped(
          readFilesFrom(
            parsed.filesFrom,
            ctx.cwd,
            ctx.streams.stdin,
            parsed.nullSeparated,
            controller.signals.stop,
          ),
          controller.signals.stop,
        )
      : [];
    // Interrupted while the list was read: standard input is let go, or it would keep the process.
    if (!listed && parsed.filesFrom === '-') ctx.streams.stdin.destroy();
    const code = listed
      ? await runBatch(ctx, { args, listed, options: parsed }, controller.signals)
      : interruptedBeforeDeciding(ctx.io, parsed.dryRun);
    if (code === ExitCode.interrupted) ctx.log.error(interruptedLine(words));
    return code;
  } finally {
    dispose();
  }
}

/** The value of `work`, or undefined as soon as `stop` is aborted (whatever is left is let go). */
function untilStopped<T>(work: Promise<T>, stop: AbortSignal): Promise<T | undefined> {
  if (stop.aborted) return Promise.resolve(undefined);
  return new Promise((resolve, reject) => {
    const onStop = () => resolve(undefined);
    stop.addEventListener('abort', onStop, { once: true });
    work.then(resolve, reject).finally(() => stop.removeEventListener('abort', onStop));
  });
}
