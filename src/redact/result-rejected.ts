/** A result that is not a whole, plausible redaction of its input. Never retried by fetching again. */
export class ResultRejectedError extends Error {
  override name = 'ResultRejectedError';
}

/** A result rejected for its size: past its cap (result-cap.ts), announced or sent. */
export class ResultTooLargeError extends ResultRejectedError {
  override name = 'ResultTooLargeError';
}

/**
 * An answer with a success status whose body does not even begin as a WAV file: text, a page, an
 * MP3. No redaction of the service looks like it; a mock generated from the interface, labelling any
 * text `audio/wav`, answers every upload so. Counts toward the wrong-host stop (wrong-service.ts).
 */
export class ResultNotWavError extends ResultRejectedError {
  override name = 'ResultNotWavError';
}
