import type { Context } from '../../context.js';
import { ExitCode, UsageError } from '../../errors.js';
import { runBatch } from '../../redact/batch.js';
import { readFilesFrom } from '../../redact/inputs.js';
import { createInterruptController, type InterruptController } from '../../redact/interrupt.js';
import { parseRedactOptions } from '../../redact/options.js';

const SIGNALS = ['SIGINT', 'SIGTERM'] as const;

/**
 * SIGINT (and SIGTERM, as from cron or systemd): the first stops starting new uploads and lets those
 * in flight finish; the second aborts them; a third leaves at once.
 *
 * Listeners other modules put on these signals are set aside while the batch runs: the config store's
 * `conf` → `atomically` → `when-exit` re-raises every SIGINT it sees (`process.kill(pid, signal)`),
 * which would turn one Ctrl-C into two (an abort) or kill the process outright. They are put back
 * afterwards; their `exit` hooks still run as usual.
 */
function installSignalHandlers(ctx: Context, controller: InterruptController): () => void {
  const onSignal = () => {
    const count = controller.interrupt();
    if (count === 1) {
      ctx.log.warn(
        'interrupted: finishing the uploads in flight and recording pending jobs (Ctrl-C again to abort them)',
      );
    } else if (count === 2) {
      ctx.log.warn('aborting the requests in flight');
    } else {
      process.exit(ExitCode.interrupted);
    }
  };
  const setAside = SIGNALS.map((signal) => {
    const listeners = process.rawListeners(signal) as Array<(...args: unknown[]) => void>;
    process.removeAllListeners(signal);
    process.on(signal, onSignal);
    return { signal, listeners };
  });
  return () => {
    for (const { signal, listeners } of setAside) {
      process.off(signal, onSignal);
      for (const listener of listeners) process.on(signal, listener);
    }
  };
}

export async function runRedact(
  ctx: Context,
  args: string[],
  options: Record<string, unknown>,
): Promise<number> {
  const parsed = parseRedactOptions(options, ctx.env);
  const listed = parsed.filesFrom ? await readFilesFrom(parsed.filesFrom, ctx.cwd, ctx.streams.stdin) : [];
  if (args.length === 0 && !parsed.filesFrom) {
    throw new UsageError(
      'no inputs',
      'name files, folders or glob patterns, or give a list with --files-from',
    );
  }
  const controller = createInterruptController();
  const dispose = installSignalHandlers(ctx, controller);
  try {
    return await runBatch(ctx, { args, listed, options: parsed }, controller.signals);
  } finally {
    dispose();
  }
}
