/**
 * A result is done only when it is verified, and it is verified as it is written: the body streams
 * through a RIFF/WAVE reader (and, for `redact`, a SHA-256 its journal keeps) on its way to the
 * temporary file. It must be a WAV with a
 * `fmt ` and a `data` chunk whose declared bytes are all there, the Content-Length honoured when one
 * was given, a duration above 0 and within the tolerance of the input's. It can never fill the disk:
 * past its cap (result-cap.ts) it is cut off and failed. Any failure removes the temporary file, so nothing is
 * left under the output name or beside it.
 */
import { createHash, type Hash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import type { ResponseBody } from '../api/client.js';
import { NotWavError, WavFormatError, WavReader } from '../audio/riff.js';
import { type Unpublished, writeUnpublished } from '../fs/atomic-write.js';
import type { OutputFolder } from '../fs/containment.js';
import { type DurationTolerance, toleranceSeconds } from './options.js';
import { apart, exactSeconds, formatLength } from '../output/format.js';
import { shownContentType } from '../output/sanitize.js';
import { byteCapFor, resultBytesPerSecond } from './result-cap.js';
import { ResultNotWavError, ResultRejectedError, ResultTooLargeError } from './result-rejected.js';
import { unchangedResultProblem, type Upload } from './unchanged-result.js';

export interface Expectation {
  /** The input's measured duration (seconds). */
  durationSec: number;
  tolerance: DurationTolerance;
  /** The file uploaded, where known: a result that is it, unchanged, is refused (unchanged-result.ts). */
  upload?: Upload | undefined;
}

/** What the checks found a body to be: its bytes and duration. */
export interface CheckedWavSummary {
  bytes: number;
  durationSec: number;
}

export interface WrittenResult extends CheckedWavSummary {
  sha256: string;
}

/**
 * What a body is checked against beside being a whole WAV with audio: `subject` names it in the
 * reasons ("the service's result"); `cap`, where given, bounds its bytes (a caller with a cap of its
 * own passes none); `judge` says why a duration is not the one expected, if it is not.
 */
export interface WavCheck {
  subject: string;
  /** The seconds of audio its cap allows (result-cap.ts), and what they are, for the reasons. */
  cap?: { seconds: number; of: string };
  judge?: (seconds: number) => Error | undefined;
  /**
   * Fed every byte that passes, where given: `redact` journals its result's SHA-256; `download` keeps
   * none, and hashing is about 7 % of its CPU over many tiny files, so it passes none.
   */
  hash?: Hash;
}

/**
 * The one home of the rule a result is verified by, `redact`'s and `download`'s: passes the bytes of
 * a body on as they are checked, throwing ResultRejectedError at the first problem, and tells `done`
 * what it was once every check has passed.
 */
export async function* checkedWav(
  response: ResponseBody,
  check: WavCheck,
  done: (result: CheckedWavSummary) => void,
): AsyncIterable<Uint8Array> {
  const { subject, cap, judge, hash } = check;
  // Until the body's layout is read, the highest rate bounds it; then its own.
  let limit = cap ? byteCapFor(cap.seconds, resultBytesPerSecond()) : Infinity;
  const refuseAnnounced = () => {
    if (cap && response.contentLength !== undefined && response.contentLength > limit) {
      throw new ResultTooLargeError(
        `${subject} is announced at ${response.contentLength} bytes, more than the ${limit} ${cap.of} can need`,
      );
    }
  };
  refuseAnnounced();
  const reader = new WavReader({
    strict: true,
    // A duration out of range is refused as soon as it is declared only when its bytes could not be
    // kept anyway; otherwise the body is read (it is under the cap), so that one cut short is named
    // as such rather than by the duration its header promised.
    onData: (declaredSec, declaredBytes) => {
      if (!cap) return;
      limit = byteCapFor(cap.seconds, resultBytesPerSecond(reader.format));
      refuseAnnounced();
      if (!Number.isFinite(declaredSec) || reader.totalBytes + declaredBytes <= limit) return;
      const problem = judge?.(declaredSec);
      if (problem) throw problem;
    },
  });
  try {
    for await (const chunk of response.body) {
      reader.push(chunk);
      // Checked once pushed, as the layout that sets the limit may come in this very chunk; nothing
      // past the limit is passed on.
      if (reader.totalBytes > limit) {
        throw new ResultTooLargeError(
          `${subject} was cut off past ${limit} bytes, more than ${cap?.of ?? 'it'} can need`,
        );
      }
      hash?.update(chunk);
      yield chunk;
    }
    if (response.contentLength !== undefined && reader.totalBytes !== response.contentLength) {
      throw new ResultRejectedError(
        `${subject} has ${reader.totalBytes} bytes where ${response.contentLength} were announced`,
      );
    }
    const summary = reader.finish();
    if (!(summary.durationSec > 0)) throw new ResultRejectedError(`${subject} is a WAV file with no audio`);
    const problem = judge?.(summary.durationSec);
    if (problem) throw problem;
    done({ bytes: summary.totalBytes, durationSec: summary.durationSec });
  } catch (error) {
    if (error instanceof WavFormatError) {
      const type = response.contentType ? ` (${shownContentType(response.contentType)})` : '';
      const Rejected = error instanceof NotWavError ? ResultNotWavError : ResultRejectedError;
      throw new Rejected(`${subject}${type} is ${error.message}`);
    }
    throw error;
  }
}

/**
 * Checks a result's bytes as they pass against its input's duration and the cap it gives, and
 * hashes them.
 */
function verified(
  response: ResponseBody,
  expect: Expectation,
  done: (result: WrittenResult) => void,
): AsyncIterable<Uint8Array> {
  const slack = toleranceSeconds(expect.tolerance, expect.durationSec);
  const low = Math.max(0, expect.durationSec - slack);
  const high = expect.durationSec + slack;
  const judge = (seconds: number) => {
    if (seconds > 0 && seconds >= low && seconds <= high) return undefined;
    const [result, input, from, to] = apart(
      [seconds, expect.durationSec, low, high],
      formatLength,
      exactSeconds,
    );
    return new ResultRejectedError(
      `the service's result lasts ${result}, the input ${input} (allowed: ${from} to ${to}, --duration-tolerance)`,
    );
  };
  const cap = { seconds: high, of: `a ${formatLength(expect.durationSec)} recording` };
  const hash = createHash('sha256');
  return checkedWav(response, { subject: "the service's result", cap, judge, hash }, (checked) =>
    done({ ...checked, sha256: hash.digest('hex') }),
  );
}

/** Where a result goes: `outputRel` below the output folder. */
export interface ResultPlace {
  folder: OutputFolder;
  outputRel: string;
  /**
   * Awaited just before the result is put under its name; when it rejects (the run's lock is another
   * run's now), the result is discarded and its error thrown.
   */
  beforePublish?: () => Promise<void>;
}

/** A verified result under its temporary name: `publish` flushes it and puts it under its name. */
export type UnpublishedResult = WrittenResult & Pick<Unpublished, 'publish' | 'discard'>;

/**
 * The sink of a result, stopping short of publishing it: streams the body to a temporary file through
 * the checks. The place is checked first: no folder on the way may be a link leading out of the output
 * folder. A file-system failure comes out as a LocalFsError naming the path.
 */
export function unpublishedResultSink(
  place: ResultPlace,
  expect: Expectation,
  signal?: AbortSignal,
): (response: ResponseBody) => Promise<UnpublishedResult> {
  return async (response) => {
    const dest = await place.folder.resolve(place.outputRel);
    let result: WrittenResult | undefined;
    const written = await writeUnpublished(
      dest,
      verified(response, expect, (checked) => {
        result = checked;
      }),
      signal,
    );
    const problem = result
      ? await unchangedResultProblem(result.sha256, expect.upload)
      : new ResultRejectedError('the result could not be verified');
    if (problem || !result) {
      await written.discard();
      throw problem;
    }
    const publish = async () => {
      try {
        await place.beforePublish?.();
      } catch (error) {
        await written.discard();
        throw error;
      }
      await written.publish();
    };
    return { ...result, publish, discard: () => written.discard() };
  };
}

/** The sink of a result, published (fsync, rename) as soon as every check has passed. */
export function resultSink(
  place: ResultPlace,
  expect: Expectation,
  signal?: AbortSignal,
): (response: ResponseBody) => Promise<WrittenResult> {
  const sink = unpublishedResultSink(place, expect, signal);
  return async (response) => {
    const { publish, discard: _discard, ...result } = await sink(response);
    await publish();
    return result;
  };
}

/**
 * Checks a result already on disk as an answer's body is checked (adopt.ts): the same rules, its size
 * as its Content-Length. Throws ResultRejectedError, or the file-system error of reading it.
 */
export async function verifyResultFile(path: string, expect: Expectation): Promise<WrittenResult> {
  const { size } = await stat(path);
  let result: WrittenResult | undefined;
  const body = createReadStream(path) as AsyncIterable<Uint8Array>;
  for await (const chunk of verified({ body, contentLength: size, contentType: '' }, expect, (checked) => {
    result = checked;
  }))
    void chunk;
  if (!result) throw new ResultRejectedError('the result could not be verified');
  const problem = await unchangedResultProblem(result.sha256, expect.upload);
  if (problem) throw problem;
  return result;
}
