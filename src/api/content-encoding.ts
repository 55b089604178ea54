/**
 * A signed URL's answer may come encoded: an object store serves a file stored with
 * `Content-Encoding: gzip` that way whatever the request asked for (vredact asks for none). The bytes
 * handed on are the file's own, decoded as a browser or `curl --compressed` would: saved as they
 * came, a `.wav` held gzip. A size cap on the handed-on bytes then bounds what a small encoded body
 * can grow into.
 */
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';
import { displayText, truncate } from '../output/sanitize.js';
import { InvalidResponseError } from './errors.js';
import { BodyReadError } from './transport.js';

const DECODERS: Record<string, () => NodeJS.ReadWriteStream> = {
  gzip: createGunzip,
  'x-gzip': createGunzip,
  deflate: createInflate,
  br: createBrotliDecompress,
};

/** The codings of a Content-Encoding header, in the order they were applied; `identity` is none. */
export function contentCodings(header: string): string[] {
  return header
    .split(',')
    .map((coding) => coding.trim().toLowerCase())
    .filter((coding) => coding !== '' && coding !== 'identity');
}

/** Why the codings cannot be decoded, or undefined when they can. */
export function codingProblem(codings: readonly string[]): string | undefined {
  const unknown = codings.find((coding) => !(coding in DECODERS));
  if (unknown === undefined) return undefined;
  return `it came with Content-Encoding "${truncate(displayText(unknown), 40)}", which vredact cannot decode`;
}

/**
 * The body decoded, last coding first. A failure to read the body passes through as it is (the
 * client retries it as a network error); bytes that do not decode are an invalid answer.
 */
export async function* decodedBody(
  body: AsyncIterable<Uint8Array>,
  codings: readonly string[],
  what: string,
): AsyncIterable<Uint8Array> {
  const decoders = [...codings]
    .reverse()
    .map((coding) => (DECODERS[coding] as () => NodeJS.ReadWriteStream)());
  const last = decoders[decoders.length - 1] as NodeJS.ReadWriteStream;
  let sourceError: unknown;
  const source = Readable.from(
    (async function* () {
      try {
        yield* body;
      } catch (error) {
        sourceError = error;
        throw error;
      }
    })(),
  );
  // Errors surface through the last decoder's iteration; the pipeline's own promise is only awaited
  // so that no rejection is left unhandled.
  const done = pipeline([source, ...decoders]).catch(() => {});
  try {
    for await (const chunk of last as AsyncIterable<Uint8Array>) yield chunk;
  } catch (error) {
    if (sourceError !== undefined || error instanceof BodyReadError) throw sourceError ?? error;
    const code = (error as { code?: string }).code;
    throw new InvalidResponseError(
      `${what}: the file does not decode as the ${codings.join(', ')} it was sent as${code ? ` (${code})` : ''}`,
    );
  } finally {
    // A reader that stopped early (a cap) ends the decoders and, through them, the body.
    source.destroy();
    for (const decoder of decoders) (decoder as unknown as Readable).destroy();
    await done;
  }
}
