/**
 * A downloaded file is kept under its name only when it is what the service's output is, a WAV,
 * verified by the rule `redact` holds its results to (verify.ts): a whole WAV, its duration above 0
 * and within the default tolerance of the duration its listing gives. An error page served with a
 * 200 (an object store's `<Error><Code>NoSuchKey</Code></Error>`) was saved under the result's name.
 * The interface does not show which names a job's files have: a file whose name does not end in
 * `.wav` is verified as a WAV when its body opens with a RIFF/WAVE header, and kept as it came
 * otherwise, unless it was served as an error page is (HTML, XML, JSON), which is never a result.
 * The checks are made as the bytes pass: the header at the start, the lengths at the end.
 */
import { open, stat } from 'node:fs/promises';
import { listedDurationReadings } from '../api/audio-duration.js';
import { LINK_HOST_HINT } from '../api/answer-hints.js';
import type { ResponseBody } from '../api/client.js';
import { declaresLength, isRiffWave } from '../audio/riff.js';
import { CliError, ExitCode } from '../errors.js';
import { apart, exactSeconds, formatLength } from '../output/format.js';
import { shownContentType } from '../output/sanitize.js';
import { DEFAULT_DURATION_TOLERANCE, toleranceSeconds } from '../redact/options.js';
import { ResultRejectedError, ResultTooLargeError } from '../redact/result-rejected.js';
import { checkedWav } from '../redact/verify.js';
import { readHead } from './body-head.js';
import { DownloadTooLargeError } from './size-cap.js';

/**
 * A downloaded file that is not a verified result: failed, nothing of it kept. A link's host may
 * serve the whole file on a later try, so the same command run again fetches it again.
 */
export class DownloadRejectedError extends CliError {
  override name = 'DownloadRejectedError';
  constructor(message: string, hint = REJECTED_HINT) {
    super(message, ExitCode.partial, hint);
  }
}

const REJECTED_HINT =
  "nothing of it was kept; run the same command again to fetch it again; if it fails again, report the file to the service's operators";

/** How a downloaded file is named in the reasons it fails with. */
const SUBJECT = 'the file';

/** Bytes that tell a RIFF/WAVE header. */
const HEAD_BYTES = 12;

/** Whether a name is a WAV's by its extension, in any letter case. */
export function hasWavName(fileName: string): boolean {
  return /\.wav$/i.test(fileName);
}

/**
 * Whether a Content-Type is an error page's (HTML, XML, JSON, and their `+xml`/`+json` kinds):
 * never a result's, whatever the file's name.
 */
export function isErrorPageType(contentType: string): boolean {
  const type = contentType.split(';')[0]?.trim().toLowerCase() ?? '';
  return (
    type === 'text/html' ||
    type === 'application/xhtml+xml' ||
    type === 'text/xml' ||
    type === 'application/xml' ||
    type === 'application/json' ||
    /^application\/[^/]+\+(xml|json)$/.test(type)
  );
}

/**
 * Why a result of `seconds` is not the file its listing describes, if it is not. Every reading of
 * the listed duration is allowed (its unit is not shown: audio-duration.ts); none listed, any is.
 */
export function listedDurationJudge(
  listed: number | null | undefined,
): (seconds: number) => Error | undefined {
  const readings = listedDurationReadings(listed).map((listedSec) => {
    const slack = toleranceSeconds(DEFAULT_DURATION_TOLERANCE, listedSec);
    return { listedSec, low: Math.max(0, listedSec - slack), high: listedSec + slack };
  });
  return (seconds) => {
    const [first, inMs] = readings;
    if (!first || readings.some(({ low, high }) => seconds >= low && seconds <= high)) return undefined;
    const [result, listedSec, from, to] = apart(
      [seconds, first.listedSec, first.low, first.high],
      formatLength,
      exactSeconds,
    );
    const asMs = inMs
      ? `, or ${formatLength(inMs.low)} to ${formatLength(inMs.high)} if it counts milliseconds`
      : '';
    return new DownloadRejectedError(
      `${SUBJECT} lasts ${result}, the job's listing gives ${listedSec} (allowed: ${from} to ${to}${asMs})`,
    );
  };
}

/** What a body is checked against: the name it is saved under and its listed `audio_duration`, as listed. */
export interface DownloadExpectation {
  fileName: string;
  listedDuration?: number | null;
  /** The seconds of audio a WAV body's own rate is allowed for (size-cap.ts), and what they are. */
  cap?: { seconds: number; of: string };
}

/**
 * Passes the bytes of `response` on as they are verified (see above); throws DownloadRejectedError at
 * the first problem, before the bytes of an error page are read. Errors of the body (its cap, a
 * network failure) pass through untouched.
 */
export async function* verifiedDownload(
  response: ResponseBody,
  expect: DownloadExpectation,
): AsyncIterable<Uint8Array> {
  if (isErrorPageType(response.contentType)) {
    const type = shownContentType(response.contentType);
    throw new DownloadRejectedError(
      `the download link's host answered with ${type}, not a WAV (an error page, not the file)`,
      LINK_HOST_HINT,
    );
  }
  const read = await readHead(response.body, HEAD_BYTES);
  try {
    if (!hasWavName(expect.fileName) && !isRiffWave(read.head)) {
      yield* read.whole();
      return;
    }
    const judge = listedDurationJudge(expect.listedDuration);
    // No hash: download keeps no record of a file's SHA-256, as redact's journal does.
    const check = { subject: SUBJECT, judge, ...(expect.cap ? { cap: expect.cap } : {}) };
    yield* checkedWav({ ...response, body: read.whole() }, check, () => undefined);
  } catch (error) {
    if (error instanceof ResultTooLargeError) throw new DownloadTooLargeError(error.message);
    if (error instanceof ResultRejectedError) throw new DownloadRejectedError(error.message);
    throw error;
  } finally {
    await read.close();
  }
}

/**
 * Whether a file already in the output folder may stand for its download (it is skipped): any file
 * of a name that is not a WAV's; a WAV's only when it opens with a RIFF/WAVE header and is as long as
 * that header declares. Twelve bytes read, as rclone compares sizes rather than contents: an error
 * page, or a file cut short, that an earlier version saved is not counted done. What is past the
 * header (a data chunk cut short inside a whole-sized file) is not read.
 */
export async function standsForDownload(path: string, fileName: string): Promise<boolean> {
  if (!hasWavName(fileName)) return true;
  const file = await open(path, 'r');
  try {
    const head = Buffer.alloc(HEAD_BYTES);
    const { bytesRead } = await file.read(head, 0, HEAD_BYTES, 0);
    if (!isRiffWave(head.subarray(0, bytesRead))) return false;
    const riffSize = head.readUInt32LE(4);
    if (!declaresLength(riffSize)) return true;
    const { size } = await file.stat();
    return size >= 8 + riffSize;
  } finally {
    await file.close();
  }
}

/**
 * What is already under `path`: nothing, a file that may stand for its download, or a WAV-named file
 * that is not a whole WAV. A file that cannot be read, or what is not a regular file, is taken as
 * there, as it was before.
 */
export async function alreadyThere(path: string, fileName: string): Promise<'none' | 'stands' | 'not-whole'> {
  const stats = await stat(path).catch(() => undefined);
  if (!stats) return 'none';
  if (!stats.isFile()) return 'stands';
  const stands = await standsForDownload(path, fileName).catch(() => true);
  return stands ? 'stands' : 'not-whole';
}
