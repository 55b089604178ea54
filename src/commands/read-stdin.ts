import type { Readable } from 'node:stream';

/** All of standard input as text, trimmed (tokens and `--files-from -` come this way). */
export async function readAllStdin(stdin: Readable): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stdin) chunks.push(Buffer.from(chunk as Uint8Array));
  return Buffer.concat(chunks).toString('utf8').trim();
}
