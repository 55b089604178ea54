/**
 * A batch pointed at something that is not the service stops after a few uploads. The recordings are
 * biometric data: a wrong base URL (a single-page app that answers any request with its page, a
 * captive portal, a server that knows no such path) should cost a few files, not an archive. Which
 * answers point at the setup is upload-fate.ts's rule; this counts them in a row, as they come, and
 * halts the batch at the WRONG_SERVICE_STREAK-th with no answer of the service between.
 */
import { type BaseUrlSource, jobsAtNonServiceHint, wrongServiceHint } from '../api/base-url-hints.js';
import { ApiError } from '../api/errors.js';
import { NotAListError } from '../api/json-reader.js';
import { hostPort } from '../api/transport.js';
import { answerPointsAtSetup, setupAnswerWords } from '../api/upload-fate.js';
import { ExitCode } from '../errors.js';
import { ResultNotWavError, ResultRejectedError } from './result-rejected.js';

/**
 * Uploads in a row answered by something that is not the service before the batch stops. One could be
 * a proxy's passing refusal; three of the same kind with nothing from the service between are not.
 * With `-c C`, at most C + 2 files reach the wrong host: those in flight when the third answer comes
 * end as they end.
 */
export const WRONG_SERVICE_STREAK = 3;

/** What halts a batch whose uploads are answered by something that is not the service. */
export class WrongServiceError extends ApiError {
  override name = 'WrongServiceError';
  constructor(
    uploads: number,
    lastAnswer: string,
    where: string,
    message?: string,
    /** What stopped the batch, for each file it left (engine.ts's stoppedReason). */
    readonly stopWords = 'uploads were answered by something that is not the Voice Redaction Service',
    /** What to do about it, naming where the base URL came from (base-url-hints.ts). */
    readonly hintFor: (source: BaseUrlSource) => string = wrongServiceHint,
  ) {
    super(
      message ??
        `${uploads} uploads in a row were answered by something that is not the Voice Redaction Service (${lastAnswer} from ${where}): nothing more was sent`,
      undefined,
      undefined,
      ExitCode.partial,
      hintFor(undefined),
    );
  }

  /**
   * Uploads accepted without a job id (a 202, which any collector of POSTs answers) by something whose
   * job listing, the first path of the interface, is not the service's: one such answer tells it, as
   * every upload of the batch would be accepted the same way meanwhile.
   */
  static acceptedByNonService(listing: string, where: string): WrongServiceError {
    return new WrongServiceError(
      0,
      listing,
      where,
      `uploads were accepted without a job id by something that is not the Voice Redaction Service (its job listing: ${listing}, from ${where}): nothing more was sent`,
    );
  }

  /**
   * An upload's connection closed with no answer before anything answered in HTTP, by something whose
   * job listing is not the service's (first-contact.ts): every upload would be taken the same way.
   */
  static droppedAtNonService(listing: string, where: string): WrongServiceError {
    return new WrongServiceError(
      0,
      listing,
      where,
      `an upload's connection was closed with no answer by something that is not the Voice Redaction Service (its job listing: ${listing}, from ${where}): nothing more was sent`,
      'uploads were taken by something that is not the Voice Redaction Service',
    );
  }

  /**
   * Jobs of earlier runs answered 404 before this run heard the service (service-heard.ts), by
   * something whose job listing is not the service's: no job is taken for gone, no file sent again.
   */
  static goneAtNonService(listing: string, where: string): WrongServiceError {
    return new WrongServiceError(
      0,
      listing,
      where,
      `jobs of earlier runs were answered 404 Not Found by something that is not the Voice Redaction Service (its job listing: ${listing}, from ${where}): nothing was sent again, and the next run looks at those jobs again`,
      'jobs were answered by something that is not the Voice Redaction Service',
      // Nothing was sent, and the jobs wait at the service: the wrong-service hint's "the next run
      // sends the files not sent" would say otherwise.
      jobsAtNonServiceHint,
    );
  }
}

/**
 * What to do about a batch's stop (`reason`, whatever halted it): a wrong service's hint names where
 * the base URL came from, which the batch knows and the streak that stopped it does not.
 */
export function stopHint(reason: unknown, source: BaseUrlSource): string | undefined {
  if (reason instanceof WrongServiceError) return reason.hintFor(source);
  return (reason as { hint?: string }).hint;
}

/**
 * Whether a job listing's refusal points at the setup: a 404, 405 or 501, a 2xx that is no listing
 * (the same answers an upload's fate calls so, and one that is not a list at all).
 */
export function listingPointsAtSetup(error: unknown): error is ApiError {
  return answerPointsAtSetup(error) || error instanceof NotAListError;
}

/** An answer, in a few words for the stop's line (`404 Not Found`, `an answer that is no list`). */
export function listingAnswerWords(error: ApiError): string {
  return error.status === undefined || error instanceof NotAListError
    ? 'an answer that is no list of jobs'
    : setupAnswerWords(error.status);
}

/** `host:port` of a base URL, as the batch's stop names who answered. */
export function answererOf(baseUrl: string | undefined): string {
  try {
    return baseUrl === undefined ? 'the base URL' : hostPort(new URL(baseUrl));
  } catch {
    return 'the base URL';
  }
}

/**
 * Uploads answered in a row by something that is not the service. An answer of the service (audio, a
 * 202, a job seen at its first look, an error answer the rule does not name) starts it again; a
 * failure with no answer (the network, a timeout, a local file) leaves it as it is, as does a job id
 * until its first look tells whether the job exists.
 */
export class WrongServiceStreak {
  #count = 0;

  constructor(
    /** Who answered, as the stop names it (`host:port`). */
    readonly where: string,
    private readonly halt: (error: WrongServiceError) => void,
    readonly limit = WRONG_SERVICE_STREAK,
  ) {}

  /** Uploads answered in a row by something that is not the service, so far. */
  get count(): number {
    return this.#count;
  }

  /** An answer that points at the setup (`answer`: `404 Not Found`); the batch halts at the limit, once. */
  foreign(answer: string): void {
    this.#count++;
    if (this.#count === this.limit) this.halt(new WrongServiceError(this.#count, answer, this.where));
  }

  /** An answer recognised as the service's: the streak starts again. */
  recognised(): void {
    this.#count = 0;
  }
}

/** How the stop's line names an answer whose "result" does not even begin as a WAV file. */
export const NOT_WAV_ANSWER = 'a result that is no WAV file at all';

/**
 * Counts a failed upload's answer toward the batch's stop when it points at the setup, as does a
 * "result" that is no WAV at all (a mock's text labelled `audio/wav`); any other answer (a result
 * that failed its other checks, a 400, a 413, a 5xx) is the service's and starts the count again; a
 * failure with no answer (the network, a timeout) leaves it.
 */
export function countFailedUpload(streak: WrongServiceStreak, error: unknown): void {
  if (answerPointsAtSetup(error)) streak.foreign(setupAnswerWords(error.status));
  else if (error instanceof ResultNotWavError) streak.foreign(NOT_WAV_ANSWER);
  else if (error instanceof ResultRejectedError || (error instanceof ApiError && error.status !== undefined))
    streak.recognised();
}
