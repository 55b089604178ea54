/**
 * What collecting a `submitted` record's job needs (its job id, the upload's name, the input's
 * duration and SHA-256), held by row for each input whose last record is one. Held whole, a submitted
 * record cost about 500 bytes of V8's heap, and V8 lets its heap grow to twice what it holds: a dry
 * run over 1,000,000 inputs sent with `--no-wait` peaked at 757 MB. Here the four are one text of
 * about 100 bytes, packed as UTF-8 outside the heap (see packed-strings.ts), the SHA-256 as 43
 * characters of base64url instead of 64 of hex.
 */
import { Uint32Column } from './chunked-columns.js';
import type { JournalRecord } from './journal.js';
import { PackedStrings } from './packed-strings.js';

export interface JobDetails {
  jobId: string;
  uploadName: string | undefined;
  durationSec: number | undefined;
  inputSha256: string | undefined;
}

/** Between the fields: JSON text may hold any character, so a field holding this one is not packed. */
const SEPARATOR = '\u0000';
const HEX_SHA256 = /^[0-9a-f]{64}$/;
/**
 * Texts are only ever appended: one replaced (its input's job collected since) stays until this many
 * are, and more than are live, when the live ones are copied to a new store. A journal read through
 * its history (uploading, submitted, done for each input) replaces nearly every text it packs.
 */
const REPACK_AFTER = 65_536;
/** Live texts up to this many are set aside and the store filled again, reusing its memory. */
const REPACK_IN_PLACE = 16_384;

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
  #texts = new PackedStrings();
  /** Each row's text's number + 1; 0 for none. */
  readonly #textOf = new Uint32Column();
  #live = 0;
  /** One past the last row given a text: how far a repacking looks. */
  #rows = 0;

  /** Holds a submitted record's details on its row; false (and none held) when they cannot be. */
  set(row: number, record: JournalRecord): boolean {
    const text = encode(record);
    this.clear(row);
    if (text === undefined) return false;
    const dead = this.#texts.length - this.#live;
    if (dead >= REPACK_AFTER && dead > this.#live) this.#repack();
    this.#textOf.set(row, this.#texts.push(text) + 1);
    this.#live++;
    if (row >= this.#rows) this.#rows = row + 1;
    return true;
  }

  get(row: number): JobDetails | undefined {
    const number = this.#textOf.get(row);
    return number === 0 ? undefined : decode(this.#texts.at(number - 1));
  }

  clear(row: number): void {
    if (this.#textOf.get(row) === 0) return;
    this.#textOf.set(row, 0);
    this.#live--;
  }

  /** Texts held, replaced ones included (for tests). */
  get packed(): number {
    return this.#texts.length;
  }

  /**
   * In a journal read through its history few jobs are live at once (those in flight when it was
   * written): they are set aside and the store refilled. Many live ones are copied to a new store.
   */
  #repack(): void {
    const old = this.#texts;
    if (this.#live <= REPACK_IN_PLACE) {
      const live: [row: number, text: string][] = [];
      for (let row = 0; row < this.#rows; row++) {
        const number = this.#textOf.get(row);
        if (number !== 0) live.push([row, old.at(number - 1)]);
      }
      old.clear();
      for (const [row, text] of live) this.#textOf.set(row, old.push(text) + 1);
      return;
    }
    const texts = new PackedStrings();
    for (let row = 0; row < this.#rows; row++) {
      const number = this.#textOf.get(row);
      if (number !== 0) this.#textOf.set(row, texts.push(old.at(number - 1)) + 1);
    }
    this.#texts = texts;
  }
}
