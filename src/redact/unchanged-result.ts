/**
 * A result that is byte for byte the file uploaded is not a redaction: the voice in it is still the
 * speaker's. Every other check passes it (it is a whole WAV of the input's duration, being the
 * input), so a host that echoes uploads (a stub, a misrouted proxy) or a service that hands a file
 * back untouched (when it finds no speaker in it, say) had the recording saved as redacted and
 * journaled done. It is refused, unless nothing in it can be heard: a file of digital silence may
 * come back as it went (the sandbox returns a silent 16 kHz mono 16-bit file unchanged), and it
 * holds no voice to protect. Read only when the SHA-256s match: nothing for any other result.
 */
import { wavPeak } from '../audio/wav-peak.js';
import { ResultRejectedError } from './result-rejected.js';

/** Below this peak (-60 dBFS, A-law's smallest step included) nothing in a recording can be heard. */
export const SILENCE_PEAK = 1 / 1024;

/** The file uploaded, as it was checked: its SHA-256 and where it is. */
export interface Upload {
  sha256: string;
  path: string;
}

/** Why a result whose bytes hash to `sha256` is not a redaction of `upload`, if it is not. */
export async function unchangedResultProblem(
  sha256: string,
  upload: Upload | undefined,
): Promise<ResultRejectedError | undefined> {
  if (!upload || sha256 !== upload.sha256) return undefined;
  // The input is read again: its bytes are the result's (an MP3 never is: results are WAVs).
  const peak = await wavPeak(upload.path).catch(() => undefined);
  if (peak !== undefined && peak < SILENCE_PEAK) return undefined;
  return new ResultRejectedError(
    "the service's result is the uploaded file itself, unchanged (the same SHA-256): it is not a redaction",
  );
}
