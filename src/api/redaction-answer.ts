/** Reading the answer to a redaction upload: audio (the synchronous result) or a job to collect later. */
import type { Dispatcher } from 'undici';
import { escapeControls } from '../output/sanitize.js';
import { InvalidResponseError } from './errors.js';
import { parseExactJson } from './exact-json.js';
import { assertJobId, jobIdFromAnswer } from './identifiers.js';
import { SMALL_JSON_LIMIT, tooBigForSmallJson } from './json-reader.js';
import { jobIdFieldOf } from './schemas.js';
import type { Scrub } from './scrub.js';
import { closeBody, headerValue, networkError, peek } from './transport.js';
import { isRiffWave } from '../audio/riff.js';

/**
 * What a redaction request gave: the audio, as the sink made of it, a job to collect later, or an
 * acceptance that names no job (its job is looked for among the service's jobs by the upload's name).
 */
export type RedactionAnswer<T> =
  { kind: 'audio'; result: T } | { kind: 'job'; jobId: string } | { kind: 'accepted' };

/**
 * Whether an answer that is neither audio nor a job id still says the upload was taken: a 202
 * (Accepted), whatever its body (the interface shows no body for its asynchronous case). A 200 that
 * names no job is not taken for one: a portal or a proxy at the wrong base URL answers 200 to any
 * POST, and each file would then wait for a job that does not exist until --wait-timeout (two hours
 * by default) instead of failing at once with the hint to check the base URL.
 */
function isAcceptance(status: number): boolean {
  return status === 202;
}

/**
 * Audio (an `audio/*` type or a RIFF/WAVE start) goes to `consume`; a JSON body naming a job gives its
 * id, checked like every identifier from the service; an acceptance naming no job (isAcceptance) says
 * so; anything else is an error for that file.
 */
export async function readRedactionAnswer<T>(
  response: Dispatcher.ResponseData,
  consume: (body: AsyncIterable<Uint8Array>) => Promise<T>,
  what: string,
  url: URL,
  scrub: Scrub,
): Promise<RedactionAnswer<T>> {
  const contentType = headerValue(response.headers, 'content-type').toLowerCase();
  let peeked: { head: Buffer; all: AsyncIterable<Uint8Array> };
  try {
    peeked = await peek(response.body, 12);
  } catch (error) {
    // An encoded body that does not decode fails at its first bytes: an invalid answer, not the network.
    if (error instanceof InvalidResponseError) throw error;
    throw networkError(error, what, url);
  }
  try {
    return await answerOf(response, peeked, consume, { what, url, scrub, contentType });
  } finally {
    // A body not read to its end (refused by the sink unread, or a JSON answer past its limit) would
    // hold its connection until the body timeout; a body read whole is not touched by this.
    closeBody(response.body);
  }
}

async function answerOf<T>(
  response: Dispatcher.ResponseData,
  peeked: { head: Buffer; all: AsyncIterable<Uint8Array> },
  consume: (body: AsyncIterable<Uint8Array>) => Promise<T>,
  { what, url, scrub, contentType }: { what: string; url: URL; scrub: Scrub; contentType: string },
): Promise<RedactionAnswer<T>> {
  if (contentType.startsWith('audio/') || isRiffWave(peeked.head)) {
    return { kind: 'audio', result: await consume(peeked.all) };
  }
  let text: string;
  try {
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of peeked.all) {
      chunks.push(Buffer.from(chunk));
      size += chunk.length;
      if (size > SMALL_JSON_LIMIT) throw tooBigForSmallJson(what);
    }
    text = Buffer.concat(chunks).toString('utf8');
  } catch (error) {
    if (error instanceof InvalidResponseError) throw error;
    throw networkError(error, what, url);
  }
  let body: unknown;
  try {
    body = await parseExactJson(text, what);
  } catch {
    body = undefined;
  }
  const named = jobIdFieldOf(body);
  if (named !== undefined) {
    return { kind: 'job', jobId: assertJobId(scrub(jobIdFromAnswer(named.value, named.field, what)), what) };
  }
  if (isAcceptance(response.statusCode)) return { kind: 'accepted' };
  throw new InvalidResponseError(
    `${what}: the service answered ${response.statusCode} with neither audio nor a job id (${escapeControls(scrub(contentType)) || 'no content type'})`,
  );
}
