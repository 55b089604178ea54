import { closeSync, openSync, writeSync } from 'node:fs';
import { createInterface, type Interface } from 'node:readline/promises';
import { Writable } from 'node:stream';
import type { Streams } from '../../context.js';

/** The question `login` and `config set token -` ask at a terminal. */
export const TOKEN_QUESTION = 'Paste your usage token (it will not be shown): ';

/**
 * Asks for a secret on the terminal without echoing it. node:readline has no hidden mode, so the
 * prompt is written once and everything readline would echo afterwards is swallowed. Resolves with
 * undefined on Ctrl-C: readline holds the terminal in raw mode, so the key raises no SIGINT and
 * would otherwise come back as an AbortError ("Aborted with Ctrl+C"); with an empty string on Ctrl-D.
 * Ctrl-Z stops the process as at any prompt; after `fg` the question is asked again.
 */
export async function promptSecret(streams: Streams, question: string): Promise<string | undefined> {
  const muted = new Writable({ write: (_chunk, _encoding, done) => done() });
  const rl = createInterface({ input: streams.stdin, output: muted, terminal: true });
  const screen = promptScreen(streams);
  // Shown once the terminal is in raw mode: a Ctrl-C as soon as the prompt is seen comes to readline,
  // not as a SIGINT to the shell's whole process group.
  screen.write(question);
  const interrupted = new Promise<undefined>((resolve) => rl.once('SIGINT', () => resolve(undefined)));
  rl.on('SIGCONT', () => askAgain(rl, screen, question));
  // Ctrl-D (the end of input) gives nothing: readline would reject with "Aborted with Ctrl+D".
  const ended = new Promise<string>((resolve) => rl.once('close', () => resolve('')));
  try {
    return (await Promise.race([rl.question(''), interrupted, ended]))?.trim();
  } finally {
    rl.close();
    screen.write('\n');
    screen.close();
  }
}

/** Where the question is shown. */
interface PromptScreen {
  write(text: string): void;
  close(): void;
}

/**
 * Standard error, unless it is not a terminal while standard input is one (`vredact login 2>/dev/null`,
 * `2>log`): the question went where nobody saw it, and the command seemed to hang. Then it is asked on
 * the controlling terminal, as ssh, sudo and gh do; where there is none to open, on standard error.
 */
function promptScreen(streams: Streams): PromptScreen {
  const onStderr = { write: (text: string) => void streams.stderr.write(text), close: () => {} };
  if (streams.stderr.isTTY || !streams.stdin.isTTY || process.platform === 'win32') return onStderr;
  let fd: number;
  try {
    fd = openSync('/dev/tty', 'w');
  } catch {
    return onStderr;
  }
  return {
    write: (text) => {
      try {
        writeSync(fd, text);
      } catch {
        // The terminal went away (a hang-up): the question cannot be shown anywhere else either.
      }
    },
    close: () => closeSync(fd),
  };
}

/**
 * After Ctrl-Z and `fg`, readline leaves its input paused: nothing else keeps the process waiting,
 * so it ended as if it had stopped halfway. The shell's job line has pushed the question away, and
 * what was typed before Ctrl-Z cannot be seen to be edited: it is forgotten, and the question is
 * shown again for the whole token.
 */
function askAgain(rl: Interface, screen: PromptScreen, question: string): void {
  rl.write('', { ctrl: true, name: 'e' });
  rl.write('', { ctrl: true, name: 'u' });
  rl.resume();
  screen.write(question);
}
