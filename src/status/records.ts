/**
 * What status keeps of a journal record: only the fields it shows and those the journal's rules
 * compare, so that holding one record per input stays small. The hashes and the voice (half of a
 * done line) are kept only for the manifest. The lines are read, and the rules applied, by the
 * run's own reader (src/redact/journal-read.ts): status reports what the next run will act on.
 */
import { RecordTable } from '../redact/record-table.js';
import { TextColumn } from '../redact/text-column.js';
import { doneTimeOf, type JournalRecord } from '../redact/journal.js';
import { earlierMisses, linkMissesNote } from '../redact/link-tries.js';
import { EarlierOutputs } from './earlier-output.js';
import { HashColumn } from './hash-column.js';

/** The events an input's last record can have (a `withdrawn` line only takes an `uploading` one back). */
export type JournalEvent = Exclude<JournalRecord['event'], 'withdrawn'>;
/**
 * What status reports: `uploading` is an upload a run under way is sending now; `pending` an upload
 * cut short (no run holds its journal) or a job submitted but not yet collected.
 */
export type FileState = 'done' | 'uploading' | 'pending' | 'failed' | 'rejected';

/** The target-voice fields the journal records on a done line, in the order the manifest lists them. */
export const VOICE_FIELDS = ['age', 'gender', 'language', 'model_id', 'emotion', 'avatar'] as const;
export type VoiceField = (typeof VOICE_FIELDS)[number];
export type Voice = Partial<Record<VoiceField, string>>;

export interface StatusRecord {
  event: JournalEvent;
  /** When the line was written, as journaled (ISO 8601). */
  at: string;
  /** done: when the redaction was done, where that is not `at` (a touched file's line, see shownTime). */
  doneAt?: string;
  /** Absolute real path of the input. */
  input: string;
  /** The output, relative to the output folder, `/`-separated; empty when the journal has none. */
  output: string;
  jobId?: string;
  reason?: string;
  inputSha256?: string;
  outputSha256?: string;
  voice?: Voice;
  /** An `uploading` record of a run that holds its journal's lock now: in flight, not cut short. */
  inFlight?: true;
  /** uploading: its answer was lost, and its job is (or was) looked for (JournalRecord.answerLost). */
  answerLost?: true;
  /**
   * When this record is not done: the input's latest done record before it, whose output no later
   * attempt replaced (see earlier-output.ts), with its hashes.
   */
  earlier?: StatusRecord;
}

/**
 * The time status and the manifest show of a record: a done one's redaction (its `doneAt`, on the line
 * of a touched file journaled again), else when its line was written.
 */
export function shownTime(record: Pick<StatusRecord, 'at' | 'doneAt'>): string {
  return record.doneAt ?? record.at;
}

export function stateOf(event: JournalEvent, inFlight = false): FileState {
  if (event === 'uploading') return inFlight ? 'uploading' : 'pending';
  if (event === 'submitted') return 'pending';
  return event;
}

const SETTLED: ReadonlySet<string> = new Set<JournalEvent>(['done', 'failed', 'rejected']);

/**
 * The event as status reports it. The reader takes any text as an event, and a run sends again a file
 * whose last event it does not know (a later version's, or damage): status says failed, and why.
 */
function knownEvent(event: string): { event: JournalEvent; reason?: string } {
  // Never the last record of an input (the reader applies it by taking an `uploading` one back).
  if (event === 'withdrawn' || event === 'uploading') return { event: 'uploading' };
  if (event === 'submitted' || SETTLED.has(event)) return { event: event as JournalEvent };
  return { event: 'failed', reason: unknownEventReason(event) };
}

export function unknownEventReason(event: string): string {
  return `its last journal line has an event this version of vredact does not know (${JSON.stringify(event)}): the next run sends it again`;
}

/** The state of an input whose last record has `event`, without building the record. */
export function stateOfEvent(event: string, inFlight = false): FileState {
  return stateOf(knownEvent(event).event, inFlight);
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

function voiceOf(value: unknown): Voice | undefined {
  if (!value || typeof value !== 'object') return undefined;
  const voice: Voice = {};
  let any = false;
  for (const field of VOICE_FIELDS) {
    const entry = text((value as Record<string, unknown>)[field]);
    if (entry !== undefined) {
      voice[field] = entry;
      any = true;
    }
  }
  return any ? voice : undefined;
}

/** A submitted job whose result link had no result in earlier runs: how many of the tries are spent. */
function linkMissesReason(record: JournalRecord): string | undefined {
  const misses = record.event === 'submitted' ? earlierMisses(record.linkMisses) : 0;
  return misses > 0 ? `submitted; ${linkMissesNote(misses)}: the next run tries again` : undefined;
}

/** What status shows of a journal record; fields of odd types are left out. */
export function statusRecordOf(record: JournalRecord, details: boolean): StatusRecord {
  const known = knownEvent(record.event);
  const status: StatusRecord = {
    event: known.event,
    at: record.at,
    input: record.input,
    output: text(record.output) ?? '',
  };
  const jobId = text(record.jobId);
  if (jobId !== undefined) status.jobId = jobId;
  const reason = known.reason ?? text(record.reason) ?? linkMissesReason(record);
  if (reason !== undefined) status.reason = reason;
  if (record.event === 'uploading' && record.answerLost === true) status.answerLost = true;
  if (record.event === 'done') {
    const doneAt = doneTimeOf(record);
    if (doneAt !== record.at) status.doneAt = doneAt;
  }
  if (!details) return status;
  const inputSha256 = text(record.inputSha256);
  if (inputSha256 !== undefined) status.inputSha256 = inputSha256;
  if (record.event === 'done') {
    const outputSha256 = text(record.outputSha256);
    if (outputSha256 !== undefined) status.outputSha256 = outputSha256;
    const voice = voiceOf(record.voice);
    if (voice !== undefined) status.voice = voice;
  }
  return status;
}

/**
 * The last record of each input as status holds it: the run's RecordTable (what the journal's rules
 * compare, as typed columns) with the columns status shows beside it, by the same rows: the output,
 * the input's SHA-256 (an earlier output names the bytes it came from) and, with `details` (the
 * manifest), the output's SHA-256 and the voice. A voice is held once per distinct voice. Everything
 * else a line carries is dropped as it is read. Beside it, the done record of each input whose last
 * record is not done (earlier-output.ts), in a table of its own made only when there is one.
 */
export class StatusTable extends RecordTable {
  /** Packed: every input has one, and most lines of an input name the same. */
  readonly #output = new TextColumn();
  readonly #inputSha256 = new HashColumn();
  readonly #outputSha256 = new HashColumn();
  readonly #voice: (Voice | undefined)[] = [];
  readonly #voices = new Map<string, Voice>();
  /** The few done records that carry a `doneAt` (a touched file's line), by row. */
  readonly #doneAt = new Map<number, string>();
  /** The few uploading records whose answer was lost (`answerLost`), by row. */
  readonly #answerLost = new Set<number>();
  readonly #earlier = new EarlierOutputs(() => new StatusTable(true));

  constructor(readonly details: boolean) {
    super();
  }

  /** The input's latest done record before its last one, when its last one is not done. */
  earlierOf(input: string): JournalRecord | undefined {
    return this.#earlier.get(input);
  }

  hasEarlier(input: string): boolean {
    return this.#earlier.has(input);
  }

  /** A done record that loses to a later one of another journal may still be the standing output. */
  override loses(record: JournalRecord, source: number): boolean {
    if (!super.loses(record, source)) return false;
    if (record.event === 'done' && this.eventOf(record.input) !== 'done') this.#earlier.outranked(record);
    return true;
  }

  /** The records before upload streaks, with the same columns (a withdrawn upload gives one back). */
  override emptyLike(): StatusTable {
    return new StatusTable(this.details);
  }

  override put(record: JournalRecord, source: number): void {
    const done = record.event === 'done';
    if (done) this.#earlier.forget(record.input);
    else if (this.eventOf(record.input) === 'done')
      this.#earlier.replaced(this.get(record.input) as JournalRecord);
    super.put(record, source);
    const row = this.rowFor(record.input) as number;
    this.#output.set(row, text(record.output));
    this.#inputSha256.set(row, text(record.inputSha256));
    const doneAt = done ? text(record.doneAt) : undefined;
    if (doneAt !== undefined) this.#doneAt.set(row, doneAt);
    else this.#doneAt.delete(row);
    if (record.event === 'uploading' && record.answerLost === true) this.#answerLost.add(row);
    else this.#answerLost.delete(row);
    if (!this.details) return;
    this.#outputSha256.set(row, done ? text(record.outputSha256) : undefined);
    this.#voice[row] = done ? this.#internVoice(voiceOf(record.voice)) : undefined;
  }

  /** The record with the columns status keeps: what a withdrawn upload gives back whole. */
  override getFor(input: string, knownRow: number | undefined): JournalRecord | undefined {
    const record = super.getFor(input, knownRow);
    const row = this.rowFor(input, knownRow);
    if (record === undefined || row === undefined) return record;
    const output = this.#output.get(row);
    const whole: JournalRecord = {
      v: 1,
      event: record.event,
      at: record.at,
      input: record.input,
      size: record.size,
      mtimeMs: record.mtimeMs,
      options: record.options,
    };
    if (output !== undefined) whole.output = output;
    for (const [key, value] of [
      ['uploadName', record.uploadName],
      ['jobId', record.jobId],
      ['reason', record.reason],
      ['inputSha256', this.#inputSha256.get(row)],
      ['outputSha256', this.#outputSha256.get(row)],
      ['doneAt', this.#doneAt.get(row)],
    ] as const) {
      if (value !== undefined) whole[key] = value;
    }
    if (record.linkMisses !== undefined) whole.linkMisses = record.linkMisses;
    if (record.event === 'uploading' && this.#answerLost.has(row)) whole.answerLost = true;
    const voice = this.#voice[row];
    if (voice !== undefined) whole.voice = voice;
    return whole;
  }

  #internVoice(voice: Voice | undefined): Voice | undefined {
    if (voice === undefined) return undefined;
    const key = JSON.stringify(voice);
    const held = this.#voices.get(key);
    if (held !== undefined) return held;
    this.#voices.set(key, voice);
    return voice;
  }
}
