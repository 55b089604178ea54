import { columnsOf, fitWidth } from './fit.js';
import type { IOStreams } from './iostreams.js';
import { rowsOf } from './rewrap.js';

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
/** Columns ora draws before the text: the spinner's frame and a space. */
const FRAME_COLUMNS = 2;
/**
 * Columns left free at the end of the live line. A line that reaches the last column leaves the
 * cursor waiting to wrap: the `^C` (or `^Z`) the terminal echoes at the cursor then starts a new row,
 * ora redraws on that row, and the old line stays on screen for good. Two columns hold the echo.
 */
const ECHO_COLUMNS = 2;
/**
 * Autowrap off while the line is written, on again after it (DECAWM). A terminal may be narrowed
 * before it tells the program (tmux tells a pane a quarter of a second later): a line drawn for the
 * old width is then cut at the edge, on the one row ora erases at the next frame, instead of running
 * onto rows that no one erases. Other output keeps its wrapping: it is written between frames.
 */
const NO_WRAP = '\u001b[?7l';
const WRAP = '\u001b[?7h';
/**
 * How far back the lines drawn are kept for a resize. The terminal rewraps the line on screen when
 * narrowed and may tell the program later (tmux up to a quarter of a second later); meanwhile
 * frames for the old width are drawn on its last row. The rows counted are those of the narrowest
 * line drawn in this window, which holds the one on screen then: counting from a wider one could
 * erase a row of other output above it, from a narrower one at worst leaves a row of the old line.
 */
const DRAWN_WINDOW_MS = 600;
/** Cursor up a row, then erase that row. */
const ERASE_ROW_ABOVE = '\u001b[1A\u001b[2K';

/** Columns the text of a live line may take on `stream`'s terminal (less the frame and the echo's room). */
export function liveTextColumns(stream: IOStreams['stderr']): number {
  return (stream.columns ?? 0) - FRAME_COLUMNS - ECHO_COLUMNS;
}

/**
 * An ora spinner on stderr when live progress is on (see IOStreams); nothing at all otherwise
 * (cron, pipes, --json, --quiet, --no-progress). Its line is cut to the width, so that it always
 * takes one row, and is drawn again at once when the terminal is resized.
 */
export async function startSpinner(
  io: Pick<IOStreams, 'progress' | 'stderr' | 'color'> & Partial<Pick<IOStreams, 'rewraps'>>,
  text: string,
  /** The text for the terminal's new width, asked for when it is resized; `text` stays otherwise. */
  refit?: () => string,
): Promise<Spinner> {
  if (!io.progress) return quietSpinner;
  const { default: ora } = await import('ora');
  let wanted = text;
  /** The widths of the lines drawn lately, the newest last (see DRAWN_WINDOW_MS). */
  let drawn: Array<{ at: number; columns: number }> = [];
  const shown = (next: string) => {
    wanted = next;
    const fitted = fitWidth(next, liveTextColumns(io.stderr));
    const at = Date.now();
    drawn = drawn.filter((line) => line.at >= at - DRAWN_WINDOW_MS);
    drawn.push({ at, columns: FRAME_COLUMNS + columnsOf(fitted) });
    return `${NO_WRAP}${fitted}${WRAP}`;
  };
  // Listening before the line is drawn: a Ctrl-Z between the two would stop the process by default,
  // its cursor hidden. A signal's listener runs on the event loop, after the spinner below exists.
  const unlistenSuspend = listenForSuspend(
    () => spinner.stop(),
    () => spinner.start(),
  );
  const spinner = ora({
    text: shown(text),
    stream: io.stderr,
    color: io.color ? 'cyan' : false,
    interval: FRAME_MS,
    // ora's default puts the terminal in raw mode to swallow keys, and then Ctrl-C raises no SIGINT:
    // the terminal stays in its normal mode, so the keyboard interrupts as it should.
    discardStdin: false,
    // The caller decided that stderr is a terminal that can redraw a line.
    isEnabled: true,
  }).start();
  // A new text is drawn at once, so that the line on screen is always one counted above.
  const update = (next: string) => {
    spinner.text = shown(next);
    if (spinner.isSpinning) spinner.render();
  };
  const unlistenResize = listenForResize(io.stderr, () => {
    if (!spinner.isSpinning) return;
    // ora erases the row the line is on; a terminal that rewraps made rows of it above that one.
    const narrowest = Math.min(...drawn.map((line) => line.columns));
    const above =
      io.rewraps === true && Number.isFinite(narrowest) ? rowsOf(narrowest, io.stderr.columns ?? 0) - 1 : 0;
    spinner.stop();
    if (above > 0) io.stderr.write(ERASE_ROW_ABOVE.repeat(above));
    drawn = [];
    // Drawn again at once, fitted to the new width, not at the next tick: a window dragged narrower
    // a column or two at a time never rewraps it.
    spinner.text = shown(refit ? refit() : wanted);
    spinner.start();
  });
  const unlisten = () => {
    unlistenSuspend();
    unlistenResize();
  };
  return {
    update,
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

/** Calls `onResize` when the terminal of `stream` changes size; returns a function that stops it. */
function listenForResize(stream: IOStreams['stderr'], onResize: () => void): () => void {
  stream.on('resize', onResize);
  return () => stream.off('resize', onResize);
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
