/**
 * Reading an error answer's body: only its first ERROR_BODY_LIMIT bytes, since an HTML error page can
 * be large and says little. A body past the cap still gives its message where the service's JSON
 * names one within those bytes, and says it was cut either way: it lost its message, and said
 * nothing of why.
 */
import type { Readable } from 'node:stream';
import { type ErrorBody, firstMessage, MESSAGE_FIELDS, serviceMessageOf } from './error-message.js';
import { exactJsonParser } from './exact-json.js';
import { closeBody } from './transport.js';

export const ERROR_BODY_LIMIT = 64 * 1024;

/** Reads an error answer's body (a body that cannot be read is an empty one: the status speaks). */
export async function readErrorBody(
  body: Readable & AsyncIterable<Uint8Array>,
  limit = ERROR_BODY_LIMIT,
): Promise<ErrorBody> {
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of body) {
      chunks.push(Buffer.from(chunk));
      size += chunk.length;
      // One byte past the cap tells a body cut from one exactly at it.
      if (size > limit) {
        closeBody(body);
        break;
      }
    }
  } catch {
    // What was read before the failure is kept: a message it holds still says what happened.
  }
  const read = Buffer.concat(chunks);
  if (size <= limit) return { message: serviceMessageOf(read.toString('utf8')) };
  const head = read.subarray(0, limit);
  return { message: await messageInHead(head), cutAt: limit };
}

/** The message (MESSAGE_FIELDS, top level) of a JSON body of which only `head` was read, where it lies within it. */
async function messageInHead(head: Buffer): Promise<string | undefined> {
  const paths = MESSAGE_FIELDS.map((field) => `$.${field}`);
  const parser = await exactJsonParser('an error answer', { paths, keepStack: false });
  const found = new Map<unknown, unknown>();
  parser.onValue = ({ value, key }) => {
    if (!found.has(key)) found.set(key, value);
  };
  // Any body that is not such JSON (an HTML page) stops the parser: no message.
  parser.onError = () => {};
  try {
    parser.write(head);
  } catch {
    // as above
  }
  return firstMessage((field) => found.get(field));
}
