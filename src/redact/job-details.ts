/**
 * What collecting a `submitted` record's job needs (its job id, the upload's name, the input's
 * duration and SHA-256), held by row for each input whose last record is one. Held whole, a submitted
 * record cost about 500 bytes of V8's heap, and V8 lets its heap grow to twice what it holds: a dry
 * run over 1,000,000 inputs sent with `--no-wait` peaked at 757 MB. Here the four are one text of
 * about 100 bytes, packed as UTF-8 outside the heap (see text-column.ts), the SHA-256 as 43
 * characters of base64url instead of 64 of hex.
 */
import type { JournalRecord } from './journal.js';
import { TextColumn } from './text-column.js';

export interface JobDetails {
  jobId: string;
  uploadName: string | undefined;
  durationSec: number | undefined;
  inputSha256: string | undefined;
}

/** Between the fields: JSON text may hold any character, so a field holding this one is not packed. */
const SEPARATOR = '\u0000';
const HEX_SHA256 = /^[0-9a-f]{64}$/;

function fieldFits(value: unknown): value is string | undefined {
  return value === undefined || (typeof value === 'string' && value !== '' && !value.includes(SEPARATOR));
}

/**
 * The record's details as one text, or undefined when they are not of the form vredact writes (a job
 * id missing, a duration that is not a plain number, a SHA-256 not in lower-case hex): such a record
 * is held whole, exactly as it was read.
 */
function encode(record: JournalRecord): string | undefined {
  const { jobId, uploadName, durationSec, inputSha256 } = record;
  if (jobId === undefined || !fieldFits(jobId) || !fieldFits(uploadName)) return undefined;
  // Rare (a job whose result link had no result): held whole, with its count, for status.
  if (record.linkMisses !== undefined) return undefined;
  if (
    durationSec !== undefined &&
    (typeof durationSec !== 'number' || !Number.isFinite(durationSec) || Object.is(durationSec, -0))
  ) {
    return undefined;
  }
  if (inputSha256 !== undefined && (typeof inputSha256 !== 'string' || !HEX_SHA256.test(inputSha256))) {
    return undefined;
  }
  // A finite number's shortest text reads back as the same number.
  const duration = durationSec === undefined ? '' : String(durationSec);
  const sha = inputSha256 === undefined ? '' : Buffer.from(inputSha256, 'hex').toString('base64url');
  return [jobId, uploadName ?? '', duration, sha].join(SEPARATOR);
}

function decode(text: string): JobDetails {
  const [jobId = '', uploadName = '', duration = '', sha = ''] = text.split(SEPARATOR);
  return {
    jobId,
    uploadName: uploadName === '' ? undefined : uploadName,
    durationSec: duration === '' ? undefined : Number(duration),
    inputSha256: sha === '' ? undefined : Buffer.from(sha, 'base64url').toString('hex'),
  };
}

export class JobDetailsColumn {
  readonly #texts = new TextColumn();

  /** Holds a submitted record's details on its row; false (and none held) when they cannot be. */
  set(row: number, record: JournalRecord): boolean {
    const text = encode(record);
    this.#texts.set(row, text);
    return text !== undefined;
  }

  get(row: number): JobDetails | undefined {
    const text = this.#texts.get(row);
    return text === undefined ? undefined : decode(text);
  }

  clear(row: number): void {
    this.#texts.clear(row);
  }

  /** Texts held, replaced ones included (for tests). */
  get packed(): number {
    return this.#texts.packed;
  }
}
