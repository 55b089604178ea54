/**
 * A setting read from standard input (`login --token-stdin`, `config set <key> -`): one short line.
 * Read only this far: `yes | vredact login --token-stdin`, or a recording piped in by mistake, took
 * 600 MB before Node.js gave up with "Invalid string length", and a long line without a break went
 * to the service as an Authorization header, or into the config file.
 */
import type { Readable } from 'node:stream';
import { UsageError } from '../errors.js';

/** Far past any token or URL; a file or an endless stream is refused here, before any request. */
export const MAX_STDIN_VALUE_BYTES = 64 * 1024;

/** The text of standard input, trimmed (a trailing newline or CRLF is no part of a value). */
export async function readStdinValue(stdin: Readable, what: string): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stdin as AsyncIterable<Buffer | string>) {
    const bytes = Buffer.from(chunk);
    size += bytes.length;
    // Leaving the loop by a throw destroys the stream: nothing more is read.
    if (size > MAX_STDIN_VALUE_BYTES)
      throw new UsageError(
        `standard input holds more than ${MAX_STDIN_VALUE_BYTES / 1024} KiB, where ${what} is one line of text; nothing was sent or stored`,
        `pipe in ${what} alone, on one line`,
      );
    chunks.push(bytes);
  }
  return Buffer.concat(chunks).toString('utf8').trim();
}
