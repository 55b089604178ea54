/**
 * A person's terminal for end-to-end tests: a command run in a real pseudo-terminal by util-linux's
 * `script` (in every Debian-like system), with a set size. What the program wrote is read back as
 * raw bytes, and keys are typed into the terminal, so Ctrl-C goes through the terminal's line
 * discipline exactly as from a keyboard (it raises SIGINT only while the terminal is not in raw mode).
 *
 *   const term = runInPty('node bin/vredact.cjs redact in', { cwd, env, columns: 120 });
 *   await term.waitFor(/in flight/);
 *   term.type('\x03');
 *   await term.exited;
 */
import { stripVTControlCharacters } from 'node:util';
import { execa, type ResultPromise } from 'execa';

export interface PtyOptions {
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** The terminal's size (a pseudo-terminal starts at 0 × 0). */
  columns?: number;
  rows?: number;
  /** How long waitFor waits before failing (default 30 s). */
  timeoutMs?: number;
}

export interface Pty {
  /** Everything written to the terminal so far, raw (CR LF line ends, escape sequences). */
  output(): string;
  /** Resolves with the output once it matches; rejects, showing the output, after the timeout. */
  waitFor(pattern: RegExp): Promise<string>;
  /** Types into the terminal (`\x03` is Ctrl-C). */
  type(text: string): void;
  /** Resolves when the command has ended, with the shell's exit code. */
  exited: Promise<number>;
  /** Ends the terminal's processes if still running. */
  kill(): void;
}

/** Runs `command` with bash in a new pseudo-terminal of `columns` × `rows`. */
export function runInPty(command: string, options: PtyOptions): Pty {
  const columns = options.columns ?? 120;
  const rows = options.rows ?? 30;
  const timeoutMs = options.timeoutMs ?? 30_000;
  const child: ResultPromise = execa(
    'script',
    [
      '--quiet',
      '--return',
      '--flush',
      '--command',
      `stty cols ${columns} rows ${rows}; ${command}`,
      '/dev/null',
    ],
    {
      cwd: options.cwd,
      env: { ...options.env, SHELL: '/bin/bash' },
      extendEnv: false,
      stdin: 'pipe',
      buffer: false,
      reject: false,
      cleanup: true,
    },
  );
  let output = '';
  const waiters = new Set<() => void>();
  child.stdout?.on('data', (chunk: Buffer) => {
    output += chunk.toString('utf8');
    for (const waiter of [...waiters]) waiter();
  });
  const exited = child.then((result) => result.exitCode ?? -1);
  return {
    output: () => output,
    waitFor(pattern) {
      return new Promise<string>((resolve, reject) => {
        let settled = false;
        const settle = (error?: Error) => {
          if (settled) return;
          settled = true;
          clearTimeout(timer);
          waiters.delete(check);
          if (error) reject(error);
          else resolve(output);
        };
        const check = () => {
          if (pattern.test(output)) settle();
        };
        const timer = setTimeout(
          () =>
            settle(new Error(`the terminal never showed ${pattern}; it showed:\n${JSON.stringify(output)}`)),
          timeoutMs,
        );
        waiters.add(check);
        void exited.then(() => {
          if (pattern.test(output)) settle();
          else
            settle(new Error(`the command ended before ${pattern}; it showed:\n${JSON.stringify(output)}`));
        });
        check();
      });
    },
    type(text) {
      child.stdin?.write(text);
    },
    exited,
    kill() {
      child.kill('SIGKILL');
    },
  };
}

/**
 * The terminal's output as the lines left on screen: split at CR LF, each line what was written after
 * its last return to the first column (CR, or `ESC[G` as ora writes it), escape sequences removed.
 */
export function screenLines(raw: string): string[] {
  const plain = stripVTControlCharacters(raw.replace(/\u001b\[1?G/g, '\r'));
  return plain.split('\r\n').map((line) => line.slice(line.lastIndexOf('\r') + 1));
}
