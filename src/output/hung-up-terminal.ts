/**
 * Node.js 20 aborts at its exit (SIGABRT: exit 134, an "Assertion failed" in ResetStdio and a native
 * stack trace) when it cannot put back the settings of a terminal that hung up: it restores each of
 * stdin, stdout and stderr that was a terminal at its start, and a hung-up terminal refuses with EIO
 * (Node.js 22 and 24 let that be). A run that had finished its uploads and recorded them after the
 * terminal was closed ended with 134, not with its own exit code. Node.js passes over a descriptor
 * that is closed, so at exit those whose terminal has gone are closed.
 */
import { closeSync } from 'node:fs';
import { isatty } from 'node:tty';

const STDIO = [0, 1, 2];

let registered = false;

export function releaseHungUpTerminalAtExit(): void {
  if (registered) return;
  registered = true;
  const terminals = STDIO.filter((fd) => isatty(fd));
  if (terminals.length === 0) return;
  process.once('exit', () => {
    // A terminal that hung up answers no terminal request, so it no longer counts as one.
    for (const fd of terminals.filter((fd) => !isatty(fd))) {
      try {
        closeSync(fd);
      } catch {
        // Already closed: nothing is put back on it either.
      }
    }
  });
}
