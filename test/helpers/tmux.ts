/**
 * A terminal emulator for end-to-end tests: a command run in a tmux pane of a set size, on a tmux
 * server of its own (its own socket, so tests run in parallel). Where `pty.ts` gives the raw bytes a
 * program wrote, this gives what a person sees: the rows on screen and in the scrollback after the
 * emulator has applied every cursor movement, line wrap and echoed key, and whether the cursor is
 * shown. The pane stays after the command ends, so its screen and exit status can still be read.
 *
 *   const term = await startTmux('node bin/vredact.cjs redact in', { cwd, env, columns: 40 });
 *   await term.waitFor(/in flight/);
 *   await term.keys('C-c');
 *   expect(await term.exited()).toBe(130);
 *   const rows = await term.rows();
 *   await term.kill();
 */
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';

/** Whether tmux can be run here (the tests that need it are skipped otherwise). */
export const hasTmux = spawnSync('tmux', ['-V']).status === 0;

export interface TmuxOptions {
  cwd: string;
  env: NodeJS.ProcessEnv;
  columns?: number;
  rows?: number;
  /** How long waitFor and exited wait before failing (default 30 s). */
  timeoutMs?: number;
}

export interface TmuxTerminal {
  /** The scrollback and the screen, one string per row as shown, blanks at the ends trimmed. */
  rows(): Promise<string[]>;
  /** Resolves with the rows once one of them matches; rejects, showing them, after the timeout. */
  waitFor(pattern: RegExp): Promise<string[]>;
  /** Keys as tmux names them: `C-c`, `C-z`, `Enter`, or plain text. */
  keys(...keys: string[]): Promise<void>;
  /** Resolves with the command's exit status once it has ended. */
  exited(): Promise<number>;
  /** Makes the terminal `columns` wide, as a window narrowed or widened by a person (the program gets SIGWINCH). */
  resize(columns: number): Promise<void>;
  /** Whether the terminal shows its cursor (a program may have hidden it); while the pane is alive. */
  cursorVisible(): Promise<boolean>;
  /** Ends the server, its pane and the command. */
  kill(): Promise<void>;
}

const POLL_MS = 50;

/**
 * Runs `command` with bash in a new tmux pane of `columns` × `rows`, in `cwd`, with exactly `env`.
 * bash waits for a command that Ctrl-C made exit on its own terms, so its status is the command's.
 */
export async function startTmux(command: string, options: TmuxOptions): Promise<TmuxTerminal> {
  const socket = `vredact-test-${process.pid}-${randomBytes(4).toString('hex')}`;
  const timeoutMs = options.timeoutMs ?? 30_000;
  // No status bar (it would take a row), the pane kept when the command ends, a long scrollback.
  const config = join(options.cwd, `.${socket}.conf`);
  // tmux reads a pane as dead when its terminal closes, at times before it has the exit status:
  // the status is taken from a file instead.
  const statusFile = join(options.cwd, `.${socket}.status`);
  await writeFile(config, 'set -g status off\nset -g remain-on-exit on\nset -g history-limit 20000\n');
  const tmux = (...args: string[]) =>
    execa('tmux', ['-L', socket, '-f', config, ...args], {
      cwd: options.cwd,
      env: { ...options.env, SHELL: '/bin/sh' },
      extendEnv: false,
      reject: false,
    });
  const started = await tmux(
    'new-session',
    '-d',
    '-x',
    String(options.columns ?? 80),
    '-y',
    String(options.rows ?? 24),
    '-c',
    options.cwd,
    'bash',
    '--norc',
    '--noprofile',
    '-c',
    `${command}\necho "$?" > '${statusFile}'`,
  );
  if (started.exitCode !== 0) throw new Error(`tmux did not start: ${String(started.stderr)}`);
  const show = async (format: string) => String((await tmux('display-message', '-p', format)).stdout).trim();
  const rows = async () => {
    const captured = String((await tmux('capture-pane', '-p', '-S', '-', '-E', '-')).stdout);
    // tmux's own note on a pane whose command has ended (wrapped in a narrow pane) is no row of the
    // program's: it is the last thing on screen.
    const lines = captured.split('\n').map((line) => line.trimEnd());
    const note = lines.findLastIndex((line) => line.startsWith('Pane is dead'));
    if (note >= 0) lines.splice(note);
    while (lines.length > 0 && lines.at(-1) === '') lines.pop();
    while (lines.length > 0 && lines[0] === '') lines.shift();
    return lines;
  };
  /** Polls `probe` until it gives a value, failing after the timeout with `describe`'s words. */
  const poll = async <T>(probe: () => Promise<T | undefined>, describe: string): Promise<T> => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const value = await probe();
      if (value !== undefined) return value;
      if (Date.now() > deadline)
        throw new Error(`${describe}; the terminal shows:\n${(await rows()).join('\n')}`);
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }
  };
  return {
    rows,
    waitFor: (pattern) =>
      poll(async () => {
        const now = await rows();
        return now.some((row) => pattern.test(row)) ? now : undefined;
      }, `the terminal never showed ${pattern}`),
    keys: async (...keys) => {
      await tmux('send-keys', ...keys);
    },
    exited: () =>
      poll(async () => {
        const status = await readFile(statusFile, 'utf8').catch(() => '');
        return /^\d+\n$/.test(status) ? Number(status) : undefined;
      }, 'the command did not end'),
    resize: async (columns) => {
      await tmux('resize-window', '-x', String(columns));
    },
    cursorVisible: async () => (await show('#{cursor_flag}')) === '1',
    kill: async () => {
      await tmux('kill-server');
    },
  };
}
