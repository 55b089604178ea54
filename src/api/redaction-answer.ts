/** Reading the answer to a redaction upload: audio (the synchronous result) or a job to collect later. */
import type { Dispatcher } from 'undici';
import { shownContentType } from '../output/sanitize.js';
import { InvalidResponseError } from './errors.js';
import { parseExactJson } from './exact-json.js';
import { assertJobId, jobIdFromAnswer } from './identifiers.js';
import { SMALL_JSON_LIMIT, tooBigForSmallJson } from './json-reader.js';
import { jobIdOfLocationHeaders } from './job-location.js';
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

/** Statuses whose `Location` may name the job: a 202's status monitor, a 201's created resource. */
function mayLocateJob(status: number): boolean {
  return status === 201 || status === 202;
}

/**
 * The one place an answer's job id is taken from, in order: the body's own fields or one envelope
 * level (jobIdFieldOf; a bad id there is an error, as it always was), then the `Location` or
 * `Content-Location` of a 201 or 202 (job-location.ts; one not naming a job of this service is
 * ignored). A 200 naming its job only in a header is no job: see isAcceptance.
 */
function jobIdOfAnswer(
  response: Dispatcher.ResponseData,
  body: unknown,
  { what, url, jobsUrl, scrub }: { what: string; url: URL; jobsUrl: URL; scrub: Scrub },
): string | undefined {
  const named = jobIdFieldOf(body);
  if (named !== undefined) return assertJobId(scrub(jobIdFromAnswer(named.value, named.field, what)), what);
  if (!mayLocateJob(response.statusCode)) return undefined;
  return jobIdOfLocationHeaders(response.headers, url, jobsUrl, scrub);
}

/**
 * Audio (an `audio/*` type or a RIFF/WAVE start) goes to `consume`; an answer naming a job
 * (jobIdOfAnswer) gives its id, checked like every identifier from the service; an acceptance naming
 * no job (isAcceptance) says so; anything else is an error for that file. `jobsUrl` is where this
 * service's jobs are (`<base>/api/jobs`), the only place a `Location` may name one.
 */
export async function readRedactionAnswer<T>(
  response: Dispatcher.ResponseData,
  consume: (body: AsyncIterable<Uint8Array>) => Promise<T>,
  what: string,
  url: URL,
  jobsUrl: URL,
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
    return await answerOf(response, peeked, consume, { what, url, jobsUrl, scrub, contentType });
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
  context: { what: string; url: URL; jobsUrl: URL; scrub: Scrub; contentType: string },
): Promise<RedactionAnswer<T>> {
  const { what, url, scrub, contentType } = context;
  // Audio is handed on before anything else is looked at: the synchronous path costs nothing more.
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
      if (size > SMALL_JSON_LIMIT) throw tooBigForSmallJson(what, response.statusCode);
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
  const jobId = jobIdOfAnswer(response, body, context);
  if (jobId !== undefined) return { kind: 'job', jobId };
  if (isAcceptance(response.statusCode)) return { kind: 'accepted' };
  // Its status tells the upload's fate (upload-fate.ts): a 2xx outside the interface is no service's.
  throw new InvalidResponseError(
    `${what}: the service answered ${response.statusCode} with neither audio nor a job id (${shownContentType(scrub(contentType)) || 'no content type'})`,
    response.statusCode,
  );
}
