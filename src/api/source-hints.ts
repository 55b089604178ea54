/**
 * The client's boundary for hints built where the base URL's source is not known: an answer outside
 * the interface found deep in a reader, a connection dropped mid-answer. Each such error carries the
 * source-less hint of its kind, and leaves the client with the hint that names where the URL is set.
 */
import { type BaseUrlSource, unexpectedAnswerHint, urlAndNetworkHint } from './base-url-hints.js';
import { ApiError, ConnectionError, InvalidResponseError } from './errors.js';

/** `error` as it is, with `hint` instead of its own: the same class, message and fields. */
function withHint<E extends ApiError>(error: E, hint: string): E {
  const copy = Object.create(Object.getPrototypeOf(error) as object) as E;
  Object.defineProperties(copy, Object.getOwnPropertyDescriptors(error));
  Object.defineProperty(copy, 'hint', { value: hint, enumerable: true });
  return copy;
}

/** `error` with its base-URL hint naming `source`, where it was built without it. */
export function hintNamingSource(error: unknown, source: BaseUrlSource): unknown {
  if (!(error instanceof ApiError) || source === undefined) return error;
  if (error instanceof InvalidResponseError && error.hint === unexpectedAnswerHint(undefined))
    return withHint(error, unexpectedAnswerHint(source));
  if (error instanceof ConnectionError && error.hint === urlAndNetworkHint(undefined))
    return withHint(error, urlAndNetworkHint(source));
  return error;
}
