import { createInterface } from 'node:readline/promises';
import { Writable } from 'node:stream';
import type { Streams } from '../../context.js';

/** The question `login` and `config set token -` ask at a terminal. */
export const TOKEN_QUESTION = 'Paste your usage token (it will not be shown): ';

/**
 * Asks for a secret on the terminal without echoing it. node:readline has no hidden mode, so the
 * prompt is written once and everything readline would echo afterwards is swallowed. Resolves with
 * undefined on Ctrl-C: readline holds the terminal in raw mode, so the key raises no SIGINT and
 * would otherwise come back as an AbortError ("Aborted with Ctrl+C"); with an empty string on Ctrl-D.
 */
export async function promptSecret(streams: Streams, question: string): Promise<string | undefined> {
  const muted = new Writable({ write: (_chunk, _encoding, done) => done() });
  const rl = createInterface({ input: streams.stdin, output: muted, terminal: true });
  // Shown once the terminal is in raw mode: a Ctrl-C as soon as the prompt is seen comes to readline,
  // not as a SIGINT to the shell's whole process group.
  streams.stderr.write(question);
  const interrupted = new Promise<undefined>((resolve) => rl.once('SIGINT', () => resolve(undefined)));
  // Ctrl-D (the end of input) gives nothing: readline would reject with "Aborted with Ctrl+D".
  const ended = new Promise<string>((resolve) => rl.once('close', () => resolve('')));
  try {
    return (await Promise.race([rl.question(''), interrupted, ended]))?.trim();
  } finally {
    rl.close();
    streams.stderr.write('\n');
  }
}
