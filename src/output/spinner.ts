import type { IOStreams } from './iostreams.js';

export interface Spinner {
  update(text: string): void;
  /** Stops the animation and leaves a final line (plain or with a tick). */
  succeed(text: string): void;
  fail(text: string): void;
  stop(): void;
}

export const quietSpinner: Spinner = { update() {}, succeed() {}, fail() {}, stop() {} };

/** Redraws per second, at most. */
const FRAME_MS = 100;

/**
 * An ora spinner on stderr when live progress is on (see IOStreams); nothing at all otherwise
 * (cron, pipes, --json, --quiet, --no-progress).
 */
export async function startSpinner(
  io: Pick<IOStreams, 'progress' | 'stderr' | 'color'>,
  text: string,
): Promise<Spinner> {
  if (!io.progress) return quietSpinner;
  const { default: ora } = await import('ora');
  const spinner = ora({
    text,
    stream: io.stderr,
    color: io.color ? 'cyan' : false,
    interval: FRAME_MS,
    // ora's default puts the terminal in raw mode to swallow keys, and then Ctrl-C raises no SIGINT:
    // the terminal stays in its normal mode, so the keyboard interrupts as it should.
    discardStdin: false,
    // The caller decided that stderr is a terminal that can redraw a line.
    isEnabled: true,
  }).start();
  return {
    update: (next) => {
      spinner.text = next;
    },
    // ora's own symbols are coloured by chalk whatever --no-color says.
    succeed: (final) =>
      void (io.color ? spinner.succeed(final) : spinner.stopAndPersist({ symbol: '✔', text: final })),
    fail: (final) =>
      void (io.color ? spinner.fail(final) : spinner.stopAndPersist({ symbol: '✖', text: final })),
    stop: () => void spinner.stop(),
  };
}
