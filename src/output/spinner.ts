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
  const unlisten = listenForSuspend(
    () => spinner.stop(),
    () => spinner.start(),
  );
  return {
    update: (next) => {
      spinner.text = next;
    },
    // ora's own symbols are coloured by chalk whatever --no-color says.
    succeed: (final) => {
      unlisten();
      if (io.color) spinner.succeed(final);
      else spinner.stopAndPersist({ symbol: '✔', text: final });
    },
    fail: (final) => {
      unlisten();
      if (io.color) spinner.fail(final);
      else spinner.stopAndPersist({ symbol: '✖', text: final });
    },
    stop: () => {
      unlisten();
      spinner.stop();
    },
  };
}

/**
 * Ctrl-Z (SIGTSTP) while the spinner draws: the spinner hides the cursor, and a process stopped
 * there would give the shell its prompt with no cursor. Listening to SIGTSTP takes its default
 * action away, so the process stops itself (SIGSTOP) once the line is cleared and the cursor shown;
 * `fg` (SIGCONT) draws the line again. Returns a function that removes the listeners.
 */
function listenForSuspend(pause: () => void, resume: () => void): () => void {
  if (process.platform === 'win32') return () => {};
  const onSuspend = () => {
    pause();
    process.kill(process.pid, 'SIGSTOP');
  };
  process.on('SIGTSTP', onSuspend);
  process.on('SIGCONT', resume);
  return () => {
    process.off('SIGTSTP', onSuspend);
    process.off('SIGCONT', resume);
  };
}
