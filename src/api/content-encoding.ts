/**
 * An answer may come encoded whatever the request asked for (vredact asks for none): an object store
 * serves a file stored with `Content-Encoding: gzip` that way, and a gateway in front of the service
 * may compress its JSON and its results. The bytes handed on are the answer's own, decoded as a
 * browser or `curl --compressed` would: read as they came, a `.wav` held gzip and a job listing was
 * "not JSON". A size cap on the handed-on bytes then bounds what a small encoded body can grow into.
 */
import { Readable } from 'node:stream';
import type { Dispatcher } from 'undici';
import { pipeline } from 'node:stream/promises';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';
import { displayText, truncate } from '../output/sanitize.js';
import { type Answerer, THE_SERVICE } from './answer-hints.js';
import { InvalidResponseError } from './errors.js';
import { BodyReadError, closeBody, headerValue } from './transport.js';

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

/** The coding of `codings` that cannot be decoded, shown safe, or undefined when all can. */
function undecodable(codings: readonly string[]): string | undefined {
  const unknown = codings.find((coding) => !(coding in DECODERS));
  return unknown === undefined ? undefined : truncate(displayText(unknown), 40);
}

/**
 * The body decoded, last coding first. A failure to read the body passes through as it is (the
 * client retries it as a network error); bytes that do not decode are an invalid answer.
 */
export async function* decodedBody(
  body: AsyncIterable<Uint8Array>,
  codings: readonly string[],
  what: string,
  from: Answerer = THE_SERVICE,
): AsyncIterable<Uint8Array> {
  const decoders = [...codings]
    .reverse()
    .map((coding) => (DECODERS[coding] as () => NodeJS.ReadWriteStream)());
  const last = decoders[decoders.length - 1] as NodeJS.ReadWriteStream;
  let sourceError: unknown;
  const iterator = body[Symbol.asyncIterator]();
  const source = Readable.from(
    (async function* () {
      let ended = false;
      try {
        for (;;) {
          let next: IteratorResult<Uint8Array>;
          try {
            next = await iterator.next();
          } catch (error) {
            ended = true;
            sourceError = error;
            throw error;
          }
          if (next.done) {
            ended = true;
            return;
          }
          // What the pipeline throws in here (a decoder's error, as it destroys the source) is no
          // failure of the body: only a failed read above is.
          yield next.value;
        }
      } finally {
        if (!ended) await iterator.return?.();
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
      `${what}: the answer of ${from.name} does not decode as the ${codings.join(', ')} it was sent as${code ? ` (${code})` : ''}`,
      undefined,
      undefined,
      undefined,
      from.hint,
    );
  } finally {
    // A reader that stopped early (a cap) ends the decoders and, through them, the body.
    source.destroy();
    for (const decoder of decoders) (decoder as unknown as Readable).destroy();
    await done;
  }
}

/**
 * The answer with its body decoded and the encoded body's Content-Length dropped (it is not the
 * length of what is read). A success in a coding vredact cannot decode fails as an invalid answer;
 * an error answer is left as it came (its text is only shown, escaped).
 */
export function decodedResponse(
  response: Dispatcher.ResponseData,
  what: string,
  from: Answerer = THE_SERVICE,
): Dispatcher.ResponseData {
  const codings = contentCodings(headerValue(response.headers, 'content-encoding'));
  if (codings.length === 0) return response;
  const success = response.statusCode >= 200 && response.statusCode <= 299;
  const unknown = undecodable(codings);
  if (unknown !== undefined) {
    if (!success) return response;
    closeBody(response.body);
    throw new InvalidResponseError(
      `${what}: the answer of ${from.name} came with Content-Encoding "${unknown}", which vredact cannot decode`,
      undefined,
      undefined,
      undefined,
      from.hint,
    );
  }
  const encoded = response.body;
  const decoded = Readable.from(decodedBody(encoded, codings, what, from), { objectMode: false });
  // A reader that lets the decoded body go (a cap, an error) lets the connection's body go too.
  decoded.once('close', () => closeBody(encoded));
  const headers = { ...response.headers };
  delete headers['content-length'];
  // Readers use the body as a Readable and an async iterable, never undici's own body methods.
  return { ...response, headers, body: decoded as unknown as Dispatcher.ResponseData['body'] };
}
