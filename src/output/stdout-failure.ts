/**
 * The one home of what a failing stdout or stderr does to a command.
 *
 * A reader that went away (`| head -1`, EPIPE) wanted no more: that is not an error (and for
 * `redact` and `download` it is a first interrupt, src/interrupt.ts). Any other failure (a full disk,
 * `> /dev/full`, an I/O error) lost data a script expected: the command goes on with its work, as
 * `cp -v` or `ls` do, and at its exit one line says the output is incomplete and an exit code of 0
 * becomes 1, so that cron and `set -e` see it. A failing stderr has nowhere left to be reported.
 */
import type { Writable } from 'node:stream';
import { ExitCode } from '../errors.js';
import { describeFsError } from '../fs/errors.js';

/** Whether a write error means the reader went away, rather than that data was lost. */
export function isReaderGone(error: NodeJS.ErrnoException): boolean {
  return error.code === 'EPIPE';
}

/** `no space left on the device (ENOSPC)`, as a file's write failure is told. */
function describe(error: NodeJS.ErrnoException): string {
  const said = describeFsError(error);
  return error.code && said !== error.code ? `${said} (${error.code})` : said;
}

/** The line said at the exit of a command whose stdout failed other than by its reader going away. */
export function lostOutputLine(error: NodeJS.ErrnoException): string {
  return (
    `error: could not write to stdout: ${describe(error)}; what was printed there is incomplete: ` +
    'make room there or send stdout elsewhere, and run the same command again\n'
  );
}

/** What of a process is watched: its streams, its exit and its exit code. */
export type WatchedProcess = Pick<NodeJS.Process, 'once' | 'exitCode'> & {
  stdout: Writable;
  stderr: Writable;
};

const watched = new WeakSet<WatchedProcess>();

/**
 * Takes charge of a process's stdout and stderr errors for its whole life: before, an error event
 * with no listener crashed with a stack trace, or one swallowed it and the command exited 0.
 */
export function watchStdio(proc: WatchedProcess = process): void {
  if (watched.has(proc)) return;
  watched.add(proc);
  let lost: NodeJS.ErrnoException | undefined;
  proc.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (!lost && !isReaderGone(error)) lost = error;
  });
  proc.stderr.on('error', () => {});
  proc.once('exit', () => {
    if (!lost) return;
    // Written as the process exits: stderr to a file, a pipe or a terminal takes it at once.
    proc.stderr.write(lostOutputLine(lost));
    if (!proc.exitCode) proc.exitCode = ExitCode.partial;
  });
}
