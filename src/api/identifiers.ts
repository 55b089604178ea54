/**
 * The one rule for identifiers that travel to the service: a job id goes into a request's path and a
 * file name into a request's body, so neither may be something that changes where a request goes or
 * what a terminal does. The rule holds for identifiers from the service (a listing, a redaction
 * answer) and from the user (`jobs content <id>`, `download <id> [names]`) alike.
 */
import { UsageError } from '../errors.js';
import { displayText, hasLoneSurrogate, truncate } from '../output/sanitize.js';
import { InvalidResponseError } from './errors.js';
import { type JsonNumber, literalOf } from './exact-json.js';
import { type BaseUrlSource, unexpectedAnswerHint } from './base-url-hints.js';

/** Longest identifier accepted; the interface states no bound, and nothing real comes near it. */
export const MAX_IDENTIFIER_CHARS = 1024;

// C0 controls, DEL and C1: never part of a real identifier, and an escape sequence on a terminal.
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;
// Characters that end or redirect a path segment, raw or percent-encoded (a server or proxy that
// decodes once more would see `/`, `\`, `.`, `?`, `#` or `%` again).
const PATH_CHANGING = /[/\\?#]|%(2f|5c|2e|3f|23|25|00)/i;

// A lone surrogate cannot be percent-encoded (encodeURIComponent throws "URI malformed") nor
// written to a file name or a terminal as it is: no one could type such an identifier back.
const NOT_UNICODE = 'it is not valid Unicode (a lone surrogate)';

/** Why `id` cannot be used as a job id, or undefined when it can. */
export function jobIdProblem(id: string): string | undefined {
  if (id === '') return 'it is empty';
  if (id.trim() === '') return 'it is blank';
  if (id === '.' || id === '..') return `"${id}" would name another path`;
  if (id.length > MAX_IDENTIFIER_CHARS) return `it is longer than ${MAX_IDENTIFIER_CHARS} characters`;
  if (CONTROL.test(id)) return 'it contains control characters';
  if (hasLoneSurrogate(id)) return NOT_UNICODE;
  if (PATH_CHANGING.test(id)) return 'it contains a character that would change the request path';
  return undefined;
}

/**
 * Why a JSON number cannot stand for an identifier, or undefined when it can: its literal is plain
 * digits (the identifier is those digits, as written). Read by exact-json.ts, a number past 2^53
 * comes with its literal; one that did not (a number with no literal kept) is exact only up to 2^53.
 */
export function numberIdProblem(value: JsonNumber): string | undefined {
  const text = literalOf(value);
  if (text.startsWith('-')) return 'it is negative';
  if (/e/i.test(text)) return 'it is written with an exponent';
  if (!/^\d+$/.test(text)) return 'it is not a whole number';
  if (typeof value === 'number' && !Number.isSafeInteger(value))
    return 'it is past 2^53, where a number loses digits';
  return undefined;
}

/** How a refused number is quoted: its literal, cut (an answer may hold a number of a megabyte). */
export function numberShown(value: JsonNumber): string {
  return truncate(literalOf(value), 80);
}

/**
 * The job id an answer gives in `field`, a string or a JSON number (its digits as written); a number
 * that cannot be an id is an error naming the field, never rounded.
 */
export function jobIdFromAnswer(value: string | JsonNumber, field: string, where: string): string {
  if (typeof value === 'string') return value;
  const problem = numberIdProblem(value);
  if (problem)
    throw new UnsafeIdentifierError(
      `${where}: the service gave the job id as the number ${numberShown(value)} in \`${field}\`, which cannot be used (${problem})`,
    );
  return literalOf(value);
}

/**
 * Why `name` cannot be used as a file name of a job, or undefined when it can. A file name travels
 * in a JSON body, never in a path, so `/` is allowed (the download command keeps only the base name).
 */
export function fileNameProblem(name: string): string | undefined {
  if (name === '') return 'it is empty';
  if (name.trim() === '') return 'it is blank';
  if (name === '.' || name === '..') return `"${name}" is not a file name`;
  if (name.length > MAX_IDENTIFIER_CHARS) return `it is longer than ${MAX_IDENTIFIER_CHARS} characters`;
  if (CONTROL.test(name)) return 'it contains control characters';
  if (hasLoneSurrogate(name)) return NOT_UNICODE;
  return undefined;
}

/** An identifier from the service that vredact will not use. */
export class UnsafeIdentifierError extends InvalidResponseError {
  override name = 'UnsafeIdentifierError';
}

function shown(text: string): string {
  return `"${truncate(displayText(text), 80)}"`;
}

/** A job id typed by the user: a usage error (exit 2) before any request. */
export function requireUserJobId(id: string): string {
  const problem = jobIdProblem(id);
  if (problem)
    throw new UsageError(
      `the job id ${shown(id)} cannot be used: ${problem}`,
      'give a job id as `vredact jobs list` shows it',
    );
  return id;
}

/** A file name typed by the user: a usage error (exit 2) before any request. */
export function requireUserFileName(name: string): string {
  const problem = fileNameProblem(name);
  if (problem)
    throw new UsageError(
      `the file name ${shown(name)} cannot be used: ${problem}`,
      'give a file name as `vredact jobs content <jobId>` shows it',
    );
  return name;
}

/** The client's own guard: whoever gave the identifier, no request is built from an unsafe one. */
export function assertJobId(id: string, where: string): string {
  const problem = jobIdProblem(id);
  if (problem)
    throw new UnsafeIdentifierError(
      `${where}: the job id ${shown(id)} cannot be used (${problem}); no request was sent`,
    );
  return id;
}

/**
 * A job id the service has just given (a created job): vredact does not hand on an id that every
 * command using it would refuse. Its hint names where the base URL came from (`source`).
 */
export function assertNewJobId(id: string, where: string, source: BaseUrlSource): string {
  const problem = jobIdProblem(id);
  if (problem)
    throw new UnsafeIdentifierError(
      `${where}: the service gave the job id ${shown(id)}, which cannot be used (${problem})`,
      undefined,
      undefined,
      undefined,
      unexpectedAnswerHint(source),
    );
  return id;
}

/** `shownAs`: the name as errors show it (a part of the token masked in it). */
export function assertFileName(name: string, where: string, shownAs = name): string {
  const problem = fileNameProblem(name);
  if (problem)
    throw new UnsafeIdentifierError(
      `${where}: the file name ${shown(shownAs)} cannot be used (${problem}); no request was sent`,
    );
  return name;
}

/** The jobs of the token; a job's own requests are below it (jobPath). */
export const JOBS_PATH = '/api/jobs';
/** Where recordings are uploaded for redaction: a path every service answers on. */
export const REDACTION_PATH = '/api/speech-to-speech-biometric-redaction';

/** `/api/jobs/<id>/…` with the id checked and encoded. */
export function jobPath(jobId: string, rest: string, where: string): string {
  return `${JOBS_PATH}/${encodeURIComponent(assertJobId(jobId, where))}${rest}`;
}
