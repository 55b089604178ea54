import { createInterface } from 'node:readline/promises';
import { Writable } from 'node:stream';
import type { Streams } from '../../context.js';

/**
 * Asks for a secret on the terminal without echoing it. node:readline has no hidden mode, so the
 * prompt is written once and everything readline would echo afterwards is swallowed.
 */
export async function promptSecret(streams: Streams, question: string): Promise<string> {
  streams.stderr.write(question);
  const muted = new Writable({ write: (_chunk, _encoding, done) => done() });
  const rl = createInterface({ input: streams.stdin, output: muted, terminal: true });
  try {
    return (await rl.question('')).trim();
  } finally {
    rl.close();
    streams.stderr.write('\n');
  }
}
