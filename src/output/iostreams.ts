/**
 * The one object that knows the terminal, as gh's IOStreams does: the three streams, whether each
 * is a terminal, the width, colour, quiet, verbose, JSON and whether live progress is on. Output code
 * takes this (or a piece of it), never the command context.
 */
import type { Readable, Writable } from 'node:stream';
import { terminalRewraps } from './rewrap.js';

export type OutStream = Writable & { isTTY?: boolean; columns?: number };
export type InStream = Readable & { isTTY?: boolean };

export interface Streams {
  stdout: OutStream;
  stderr: OutStream;
  stdin: InStream;
}

/** Width assumed when a stream is not a terminal and COLUMNS does not say. */
export const DEFAULT_WIDTH = 80;
/** Progress wanted where stderr cannot redraw a line (not a terminal, TERM=dumb): a plain line this often. */
export const FORCED_PROGRESS_STATS_MS = 10_000;

export interface IOStreams extends Streams {
  readonly stdoutIsTTY: boolean;
  readonly stderrIsTTY: boolean;
  readonly stdinIsTTY: boolean;
  /** The user allows colour (no --no-color, no NO_COLOR); used only where a terminal is written to. */
  readonly color: boolean;
  readonly quiet: boolean;
  readonly verbose: boolean;
  readonly json: boolean;
  /** A live, redrawn line (spinner) on stderr. */
  readonly progress: boolean;
  /** Whether stderr's terminal is known to rewrap its rows when narrowed (see rewrap.ts). */
  readonly rewraps: boolean;
  /** A plain progress line on stderr every this many ms (`--stats`), or undefined. */
  readonly statsIntervalMs: number | undefined;
  /** Columns of a stream: the terminal's, else COLUMNS, else 80. */
  width(stream: 'stdout' | 'stderr'): number;
  /** Whether stdout's reader went away (EPIPE) or stdout failed otherwise. */
  readonly stdoutClosed: boolean;
  /** Called once when stdout closes under us; returns a function that removes the listener. */
  onStdoutClosed(listener: (error: NodeJS.ErrnoException) => void): () => void;
}

export interface IOStreamsOptions {
  streams: Streams;
  env: NodeJS.ProcessEnv;
  color: boolean;
  quiet: boolean;
  verbose: boolean;
  json: boolean;
  /** `--progress` (true), `--no-progress` (false), or neither (undefined: the terminal rule). */
  progress?: boolean | undefined;
  /** `--stats <interval>`, already read as milliseconds. */
  statsIntervalMs?: number | undefined;
}

/** A terminal stream's columns, or 0 when the stream is not a terminal or does not say. */
export function terminalColumns(stream: OutStream): number {
  return stream.isTTY === true && typeof stream.columns === 'number' ? stream.columns : 0;
}

/**
 * Builds the IOStreams and takes charge of stdout's and stderr's errors: a reader that goes away
 * (`| head`) raises EPIPE as an 'error' event, which would otherwise crash with a stack trace.
 */
export function createIOStreams(options: IOStreamsOptions): IOStreams {
  const { streams, env } = options;
  const stdoutIsTTY = streams.stdout.isTTY === true;
  const stderrIsTTY = streams.stderr.isTTY === true;
  // A "terminal" of 0 columns (some pseudo-terminals) cannot hold a redrawn line, nor can one that
  // says it understands no cursor movement (TERM=dumb: Emacs' shell, some CI logs).
  const canRedraw = terminalColumns(streams.stderr) > 0 && env.TERM !== 'dumb';
  // gh's rule: animation only when both stdout and stderr are terminals, so `vredact … | cat` gets
  // clean lines; --progress/--no-progress override it.
  const wanted = options.progress ?? (stdoutIsTTY && stderrIsTTY && !options.json && !options.quiet);
  const progress = wanted && canRedraw;
  const statsIntervalMs =
    options.statsIntervalMs ?? (wanted && !canRedraw ? FORCED_PROGRESS_STATS_MS : undefined);

  const envColumns = Number(env.COLUMNS);
  const fallbackWidth = Number.isInteger(envColumns) && envColumns > 0 ? envColumns : DEFAULT_WIDTH;

  const listeners = new Set<(error: NodeJS.ErrnoException) => void>();
  let closedBy: NodeJS.ErrnoException | undefined;
  streams.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (closedBy) return;
    closedBy = error;
    for (const listener of [...listeners]) listener(error);
  });
  // Nowhere is left to report a failing stderr; the run goes on.
  streams.stderr.on('error', () => {});

  return {
    ...streams,
    stdoutIsTTY,
    stderrIsTTY,
    stdinIsTTY: streams.stdin.isTTY === true,
    color: options.color,
    quiet: options.quiet,
    verbose: options.verbose,
    json: options.json,
    progress,
    rewraps: terminalRewraps(env),
    statsIntervalMs,
    width: (stream) => terminalColumns(streams[stream]) || fallbackWidth,
    get stdoutClosed() {
      return closedBy !== undefined;
    },
    onStdoutClosed(listener) {
      const error = closedBy;
      if (error) {
        queueMicrotask(() => listener(error));
        return () => {};
      }
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}
