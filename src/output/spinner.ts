import type { Context } from '../context.js';

export interface Spinner {
  update(text: string): void;
  /** Stops the animation and leaves a final line (plain or with a tick). */
  succeed(text: string): void;
  fail(text: string): void;
  stop(): void;
}

const quietSpinner: Spinner = { update() {}, succeed() {}, fail() {}, stop() {} };

/** An ora spinner on stderr when it is a terminal; nothing at all otherwise (cron, pipes, --json, --quiet). */
export async function startSpinner(ctx: Context, text: string): Promise<Spinner> {
  if (!ctx.stderrIsTTY || ctx.settings.quiet || ctx.settings.json) return quietSpinner;
  // A "terminal" without a width (some pseudo-terminals report 0 columns) sends ora into an endless
  // redraw loop.
  const columns = (ctx.streams.stderr as { columns?: number }).columns;
  if (columns === undefined || columns <= 0) return quietSpinner;
  const { default: ora } = await import('ora');
  const spinner = ora({
    text,
    stream: ctx.streams.stderr,
    color: ctx.settings.color ? 'cyan' : false,
  }).start();
  return {
    update: (next) => {
      spinner.text = next;
    },
    succeed: (final) => void spinner.succeed(final),
    fail: (final) => void spinner.fail(final),
    stop: () => void spinner.stop(),
  };
}
