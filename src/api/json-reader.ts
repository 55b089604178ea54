/**
 * Reading JSON answers. Small answers (a created job, a download URL, an error) are read whole under
 * a small cap. Lists (`GET /api/jobs`, a job's content) are parsed as a stream, item by item, so an
 * account with hundreds of thousands of jobs is read in flat memory per byte of JSON: only the items
 * themselves are kept, and no single item may exceed MAX_ITEM_BYTES. Either way an answer may nest
 * at most MAX_JSON_DEPTH levels (json-depth.ts), and its numbers are read exactly (exact-json.ts).
 */
import * as v from 'valibot';
import { InvalidResponseError } from './errors.js';
import { exactJsonParser, parseExactJson } from './exact-json.js';
import { depthCheck } from './json-depth.js';
import { describeIssues } from './schemas.js';
import { type Scrub, scrubDeep } from './scrub.js';

/** Largest answer read whole (anything but a list). */
export const SMALL_JSON_LIMIT = 1024 * 1024;
/** Largest single list item (and largest stretch of the answer between two items). */
export const MAX_ITEM_BYTES = 1024 * 1024;
/**
 * Most items read from one list: archive-scale accounts (hundreds of thousands of jobs) fit, and a
 * list that never ends fails here instead of taking the machine's memory (its items are kept).
 */
export const MAX_LIST_ITEMS = 1_000_000;

/** The one shape of an answer that does not follow the interface: `problem` in a reader's words. */
function unexpectedAnswer(what: string, problem: string): InvalidResponseError {
  return new InvalidResponseError(`${what}: unexpected answer from the service (${problem})`);
}

/** An answer that is no JSON: `problem` says where it stops being JSON (exact-json.ts). */
function notJson(what: string, problem: string): InvalidResponseError {
  return new InvalidResponseError(`${what}: the service's answer ${problem}`);
}

/**
 * A list's answer that is no list at all: not JSON, or without its array (`{"id": "…"}`, a page).
 * The service answers each list it has in its one shape, so this points at what answered, not at an
 * item (an item outside the schema is an InvalidResponseError of its own).
 */
export class NotAListError extends InvalidResponseError {
  override name = 'NotAListError';
}

/** The same failure as a NotAListError (its message kept). */
function notAList(error: InvalidResponseError): NotAListError {
  return new NotAListError(error.message, error.status);
}

/** A small JSON answer past SMALL_JSON_LIMIT: refused before it is parsed. */
export function tooBigForSmallJson(what: string, status?: number): InvalidResponseError {
  return new InvalidResponseError(
    `${what}: the service answered with more than ${SMALL_JSON_LIMIT / 1024} KiB where a small JSON object was expected`,
    status,
  );
}

/** Reads and parses a small JSON answer, scrubbed of secrets, then checks it against `schema`. */
export async function readSmallJson<S extends v.GenericSchema>(
  body: AsyncIterable<Uint8Array>,
  schema: S,
  what: string,
  scrub: Scrub,
): Promise<v.InferOutput<S>> {
  const chunks: Buffer[] = [];
  let size = 0;
  const depth = await depthCheck(what);
  for await (const chunk of body) {
    size += chunk.length;
    if (size > SMALL_JSON_LIMIT) throw tooBigForSmallJson(what);
    depth.write(chunk);
    chunks.push(Buffer.from(chunk));
  }
  let parsed: unknown;
  try {
    parsed = await parseExactJson(Buffer.concat(chunks), what);
  } catch (error) {
    if (error instanceof InvalidResponseError) throw error;
    throw notJson(what, error instanceof SyntaxError ? error.message : 'is not JSON');
  }
  return checked(schema, scrubDeep(parsed, scrub), what);
}

function checked<S extends v.GenericSchema>(schema: S, value: unknown, what: string): v.InferOutput<S> {
  const result = v.safeParse(schema, value);
  if (!result.success) throw unexpectedAnswer(what, describeIssues(result.issues));
  return result.output;
}

export interface ListReadOptions<S extends v.GenericSchema> {
  /** The key of the array in the answer's top-level object (`jobs`, `jobContent`). */
  key: string;
  item: S;
  what: string;
  scrub: Scrub;
  /** Applied to each raw item before it is scrubbed (a field that is masked whole, like a job's token). */
  before?: (raw: unknown) => unknown;
  /**
   * Whether the raw item at `position` (from 1) is taken: one that is not is neither checked nor
   * handed on (a job with no id to use). Every item is taken unless told.
   */
  admit?: (raw: unknown, position: number) => boolean;
  /**
   * Called with each item, checked and scrubbed, in the order of the answer, and the item as the
   * service gave it (unchecked, unscrubbed): for a value that must go back to the service as sent.
   */
  onItem: (item: v.InferOutput<S>, raw: unknown) => void;
  /** Awaited after each chunk's items were handed over: a slow consumer holds the reading back. */
  afterChunk?: () => Promise<void>;
  /** Most items read (MAX_LIST_ITEMS unless told). */
  maxItems?: number;
}

/**
 * Parses `{"<key>": [item, …]}` as a stream. An item that fails the schema fails the whole answer (as
 * a whole-body parse would), unless `admit` left it out first; an answer without the array is told
 * apart from an empty list. Returns how many items were handed on.
 */
export async function readJsonList<S extends v.GenericSchema>(
  body: AsyncIterable<Uint8Array>,
  options: ListReadOptions<S>,
): Promise<number> {
  const { key, what } = options;
  const maxItems = options.maxItems ?? MAX_LIST_ITEMS;
  const parser = await exactJsonParser(what, { paths: [`$.${key}.*`], keepStack: false });
  // Every item read (the bound, and the place an error names), and those handed on.
  let seen = 0;
  let count = 0;
  let sinceItem = 0;
  let failure: unknown;
  // Kept only until the first item: an answer with no items is parsed again whole, to tell `{"jobs": []}`
  // from an answer without the list, with the schema's own message.
  let head: Buffer[] | undefined = [];
  let headSize = 0;
  parser.onValue = ({ value, parent }) => {
    if (failure !== undefined) return;
    if (!Array.isArray(parent)) {
      failure = notAList(unexpectedAnswer(what, `${key} is not a list`));
      return;
    }
    if (seen >= maxItems) {
      failure = new InvalidResponseError(
        `${what}: the service listed more than ${maxItems.toLocaleString('en-US')} items; vredact reads at most that many (a list that never ends?)`,
      );
      return;
    }
    seen++;
    sinceItem = 0;
    head = undefined;
    try {
      if (options.admit && !options.admit(value, seen)) return;
      const raw = options.before ? options.before(value) : value;
      options.onItem(checked(options.item, scrubDeep(raw, options.scrub), `${what} (item ${seen})`), raw);
      count++;
    } catch (error) {
      failure = error;
    }
  };
  parser.onError = (error) => {
    failure ??= error;
  };
  for await (const chunk of body) {
    sinceItem += chunk.length;
    if (sinceItem > MAX_ITEM_BYTES) {
      throw new InvalidResponseError(
        `${what}: the service sent a list item larger than ${MAX_ITEM_BYTES / 1024} KiB; vredact reads items up to that size`,
      );
    }
    if (head) {
      head.push(Buffer.from(chunk));
      headSize += chunk.length;
      if (headSize > SMALL_JSON_LIMIT) head = undefined;
    }
    if (!parser.isEnded) parser.write(chunk);
    // Stop reading at the first failure: the rest of a hostile body is never pulled.
    if (failure !== undefined) break;
    await options.afterChunk?.();
  }
  if (failure === undefined && !parser.isEnded) {
    try {
      parser.end();
    } catch (error) {
      failure ??= error;
    }
  }
  if (failure instanceof InvalidResponseError) throw failure;
  if (failure !== undefined) throw notAList(notJson(what, parser.problemOf(failure as Error)));
  if (seen === 0) {
    if (!head) throw notAList(unexpectedAnswer(what, `${key} is missing`));
    let parsed: unknown;
    try {
      // The streaming parser's own reading: JSON.parse refused what it accepts (a UTF-8 byte order
      // mark, which RFC 8259 lets a reader ignore), and an empty listing read as "empty".
      parsed = await parseExactJson(Buffer.concat(head), what);
    } catch {
      // The streaming parse found no fault: nothing came.
      throw notAList(notJson(what, 'is empty'));
    }
    try {
      checked(v.looseObject({ [key]: v.array(v.unknown()) }), parsed, what);
    } catch (error) {
      throw error instanceof InvalidResponseError ? notAList(error) : error;
    }
  }
  return count;
}
