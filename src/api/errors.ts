import { STATUS_CODES } from 'node:http';
import { CliError, ExitCode } from '../errors.js';
import { escapeControls, truncate } from '../output/sanitize.js';
import { refusedTokenHint } from '../settings/token.js';
import { unexpectedAnswerHint, urlAndNetworkHint } from './base-url-hints.js';
import { type ErrorBody, serviceMessageOf } from './error-message.js';

/** Anything that went wrong talking to the service. `status` is absent for network failures. */
export class ApiError extends CliError {
  override name = 'ApiError';
  constructor(
    message: string,
    readonly status?: number,
    readonly serviceMessage?: string,
    exitCode: number = ExitCode.partial,
    hint?: string,
  ) {
    super(message, exitCode, hint);
  }
}

/** A 5xx has been retried already (where it may be): the service itself must mend. */
const SERVICE_FAILING_HINT = 'the service is failing; try again later, or raise --max-retries';
/**
 * A 408 is the server, or a proxy in front of it, giving up waiting for the request: the way there
 * is slow, never the base URL (which answered). Retried already, as a 5xx is.
 */
const REQUEST_TIMEOUT_HINT =
  'the service, or a proxy between, gave up waiting for the request: check the network and any proxy on the way, raise --timeout if that is what limits it, or try again later';

export class AuthenticationError extends ApiError {
  override name = 'AuthenticationError';
}
export class PermissionDeniedError extends ApiError {
  override name = 'PermissionDeniedError';
}
export class BadRequestError extends ApiError {
  override name = 'BadRequestError';
}
export class NotFoundError extends ApiError {
  override name = 'NotFoundError';
}
export class PayloadTooLargeError extends ApiError {
  override name = 'PayloadTooLargeError';
}
export class RateLimitError extends ApiError {
  override name = 'RateLimitError';
}
/**
 * Throttling the run gives up on: the service asked for a wait past --max-throttle-wait, or has been
 * throttling for longer than that. Every later request would meet it, so a batch stops, with the
 * files not sent pending, as on a full disk, rather than failing each of them in turn.
 */
export class ThrottleGivenUpError extends RateLimitError {
  override name = 'ThrottleGivenUpError';
  constructor(
    what: string,
    /** "the service asked to wait 1h 0m (until …); try again then", without what was being done. */
    readonly reason: string,
  ) {
    // No hint: the reason says what to do, and lowering -c cannot help (the window is one request
    // already) and is no option of most commands.
    super(`${what}: ${reason}`, 429, undefined, ExitCode.partial);
  }
}
export class InternalServerError extends ApiError {
  override name = 'InternalServerError';
}
/**
 * The connection failed or dropped; `refused` means the request never reached the service (refused,
 * host not found or unreachable), so nothing it carried can have been accepted.
 */
export class ConnectionError extends ApiError {
  override name = 'ConnectionError';
  constructor(
    message: string,
    readonly refused: boolean,
    hint = urlAndNetworkHint(undefined),
  ) {
    super(message, undefined, undefined, ExitCode.partial, hint);
  }
}
/**
 * The host's name does not exist (ENOTFOUND): the request never left, and a name that does not
 * exist will not exist in a second, so it is not tried again (src/api/retry.ts).
 */
export class HostNotFoundError extends ConnectionError {
  override name = 'HostNotFoundError';
}
/**
 * The service cannot be reached, for a whole batch: nothing at its URL has answered in HTTP since the
 * run began, or an outage outlasted `--max-outage-wait`. Every upload would meet it, so the batch
 * stops. `refused` false: the request reached something (it took the upload and never answered, or
 * answered in another protocol), which may have kept what it was sent.
 */
export class ServiceUnreachableError extends ConnectionError {
  override name = 'ServiceUnreachableError';
  constructor(message: string, hint?: string, refused = true) {
    super(message, refused, hint);
  }
}
/**
 * ServiceUnreachableError for a connection that took the request and then closed or reset with no
 * HTTP answer, before anything at the base URL answered in HTTP this run: a port that is not the
 * service (an `http://` URL on a TLS port), or the network blinking at the run's first request. A
 * batch looks once whether the service answers before it takes it for the whole batch's
 * (src/redact/first-contact.ts); `dropped` is the failure as it is once the service has answered.
 */
export class DroppedBeforeHeardError extends ServiceUnreachableError {
  override name = 'DroppedBeforeHeardError';
  constructor(
    message: string,
    hint: string | undefined,
    readonly dropped: ConnectionError,
  ) {
    super(message, hint, false);
  }
}
/**
 * An answer undici cannot read as HTTP/1.1 (another protocol at that port: SSH, a database, TLS; a
 * proxy that garbles answers), or with headers past undici's limit. The request reached something, so
 * an upload may have been kept; asking again gets the same answer, so it is not retried.
 */
export class UnreadableAnswerError extends ConnectionError {
  override name = 'UnreadableAnswerError';
  constructor(message: string, hint?: string) {
    super(message, false, hint);
  }
}
/**
 * The TLS handshake failed before any certificate was judged (an `https://` URL whose port speaks plain
 * HTTP: "wrong version number"; no protocol in common). Nothing was sent, and trying again cannot help.
 */
export class TlsHandshakeError extends ApiError {
  override name = 'TlsHandshakeError';
}
/**
 * A request given up while it waited (for the gate, or between attempts) because its batch is
 * stopping: no attempt of it can have been accepted, since only those that cannot are tried again.
 */
export class NotSentError extends ApiError {
  override name = 'NotSentError';
}
export class TimeoutError extends ApiError {
  override name = 'TimeoutError';
}
/**
 * An answer that began, then stalled: no byte of its body for --timeout, or under the low-speed floor
 * (low-speed.ts). Tried again once, not up to --max-retries (retry.ts): a fresh connection mends one
 * lost on the way, and a host that stalls twice would make each further try wait a whole --timeout.
 */
export class StalledError extends TimeoutError {
  override name = 'StalledError';
}
/** No connection could be made in time: like a refusal, but the request may be slow rather than wrong. */
export class ConnectTimeoutError extends TimeoutError {
  override name = 'ConnectTimeoutError';
}
/**
 * The TLS handshake failed on the server's certificate (self-signed, expired, another host's): the
 * request never left, so an upload it stopped was not taken, and trying again cannot help.
 */
export class CertificateError extends ApiError {
  override name = 'CertificateError';
}
/**
 * The proxy refused to open a tunnel to the service (407: its credentials, 403: a host it does not
 * let through): the request never reached the service, and trying again cannot help.
 */
export class ProxyRefusedError extends ApiError {
  override name = 'ProxyRefusedError';
}
/**
 * What to do about an answer outside the interface where the base URL's source is not known; the
 * client's errors name it (base-url-hints.ts).
 */
export const UNEXPECTED_ANSWER_HINT = unexpectedAnswerHint(undefined);

/** A 2xx answer that is not what the interface describes; what to do is UNEXPECTED_ANSWER_HINT unless told. */
export class InvalidResponseError extends ApiError {
  override name = 'InvalidResponseError';
  constructor(
    message: string,
    status?: number,
    serviceMessage?: string,
    exitCode: number = ExitCode.partial,
    hint: string = UNEXPECTED_ANSWER_HINT,
  ) {
    super(message, status, serviceMessage, exitCode, hint);
  }
}

/** What an error's line says of a body too large to read whole. */
function cutWords(body: ErrorBody): string {
  if (body.cutAt === undefined) return '';
  const size = `over ${Math.round(body.cutAt / 1024)} KiB`;
  return body.message === undefined
    ? ` (its error body was ${size}, too large to read)`
    : ` (its error body was ${size}; only the start was read)`;
}

/**
 * Maps an error status to its typed error, with the service's message where it sent one: scrubbed of
 * secrets, control characters escaped and cut to a few hundred characters, so the message is safe to
 * print, journal or JSON-encode wherever it goes. `body`: its text, or what error-body.ts read of it.
 */
export function errorForStatus(
  status: number,
  what: string,
  body: string | ErrorBody,
  scrub: (text: string) => string = (text) => text,
  hint?: string,
  /** Who answered, as the message names it: a signed link's host is not the service. */
  answerer = 'the service',
  /** What to do about an answer outside the interface: it names where the base URL came from. */
  unexpectedHint = UNEXPECTED_ANSWER_HINT,
): ApiError {
  const read = typeof body === 'string' ? { message: serviceMessageOf(body) } : body;
  const raw = read.message;
  const serviceMessage = raw === undefined ? undefined : truncate(escapeControls(scrub(raw)));
  const statusText = `${status}${STATUS_CODES[status] ? ` ${STATUS_CODES[status]}` : ''}`;
  const message = `${what}: ${answerer} answered ${statusText}${serviceMessage ? `: ${serviceMessage}` : ''}${cutWords(read)}`;
  // A request vredact sent as the interface says, refused: as an answer outside it.
  const refusalHint = hint ?? unexpectedHint;
  if (status === 401)
    return new AuthenticationError(
      message,
      status,
      serviceMessage,
      ExitCode.auth,
      hint ?? refusedTokenHint(undefined),
    );
  if (status === 403)
    return new PermissionDeniedError(
      message,
      status,
      serviceMessage,
      ExitCode.auth,
      hint ?? refusedTokenHint(undefined),
    );
  if (status === 404) return new NotFoundError(message, status, serviceMessage, ExitCode.partial, hint);
  // The interface's 413 is an upload too large, no sign of a wrong base URL: only the request's own hint.
  if (status === 413)
    return new PayloadTooLargeError(message, status, serviceMessage, ExitCode.partial, hint);
  if (status === 429)
    return new RateLimitError(message, status, serviceMessage, ExitCode.partial, 'wait a while, or lower -c');
  if (status >= 500)
    return new InternalServerError(
      message,
      status,
      serviceMessage,
      ExitCode.partial,
      hint ?? SERVICE_FAILING_HINT,
    );
  if (status === 408)
    return new BadRequestError(
      message,
      status,
      serviceMessage,
      ExitCode.partial,
      hint ?? REQUEST_TIMEOUT_HINT,
    );
  if (status >= 400)
    return new BadRequestError(message, status, serviceMessage, ExitCode.partial, refusalHint);
  return hint === undefined
    ? new InvalidResponseError(message, status, serviceMessage, ExitCode.partial, unexpectedHint)
    : new InvalidResponseError(message, status, serviceMessage, ExitCode.partial, hint);
}

/**
 * True for failures that every request to the service would meet, whatever it carries: its TLS
 * certificate is not trusted or its port speaks no TLS, the proxy refuses the tunnel, the service cannot be reached or throttles
 * for longer than the run rides out. A batch
 * stops on the first, rather than failing each of its files the same way.
 */
export function failsEveryRequest(error: unknown): boolean {
  return (
    error instanceof CertificateError ||
    error instanceof TlsHandshakeError ||
    error instanceof ThrottleGivenUpError ||
    error instanceof ProxyRefusedError ||
    error instanceof ServiceUnreachableError
  );
}

/** True for errors that mean the token itself was refused: the whole run stops. */
export function isTokenRefused(error: unknown): boolean {
  return error instanceof AuthenticationError || error instanceof PermissionDeniedError;
}
