/** A result that is not a whole, plausible redaction of its input. Never retried by fetching again. */
export class ResultRejectedError extends Error {
  override name = 'ResultRejectedError';
}

/** A result rejected for its size: past its cap (result-cap.ts), announced or sent. */
export class ResultTooLargeError extends ResultRejectedError {
  override name = 'ResultTooLargeError';
}
