/**
 * What status keeps of a journal line: only the fields it shows, so that holding one record per
 * input stays small. The hashes and the voice (half of a done line) are kept only for the manifest.
 */

export type JournalEvent = 'uploading' | 'submitted' | 'done' | 'failed' | 'rejected';
/** What status reports: `pending` is an upload under way or a job submitted but not yet collected. */
export type FileState = 'done' | 'pending' | 'failed' | 'rejected';

const EVENTS: ReadonlySet<string> = new Set(['uploading', 'submitted', 'done', 'failed', 'rejected']);

/** The target-voice fields the journal records on a done line, in the order the manifest lists them. */
export const VOICE_FIELDS = ['age', 'gender', 'language', 'model_id', 'emotion', 'avatar'] as const;
export type VoiceField = (typeof VOICE_FIELDS)[number];
export type Voice = Partial<Record<VoiceField, string>>;

export interface StatusRecord {
  event: JournalEvent;
  /** When the line was written, as journaled (ISO 8601), and in ms since the epoch (NaN when unreadable). */
  at: string;
  atMs: number;
  /** Absolute real path of the input. */
  input: string;
  /** The output, relative to the output folder, `/`-separated; empty when the journal has none. */
  output: string;
  jobId?: string;
  reason?: string;
  inputSha256?: string;
  outputSha256?: string;
  voice?: Voice;
  /** Which journal file it came from (its index in the list read). */
  file: number;
}

export interface ParseOptions {
  /** The journal file's index in the list read. */
  file: number;
  /** Keep the hashes and the voice (the manifest's columns); a summary does without them. */
  details: boolean;
}

export function stateOf(event: JournalEvent): FileState {
  if (event === 'uploading' || event === 'submitted') return 'pending';
  return event;
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

/**
 * One journal line as a record, or undefined when it is not one (not JSON, no input, an unknown
 * event). Fields that older journals lack (hashes, voice) are simply absent.
 */
export function parseRecord(
  line: string,
  options: ParseOptions = { file: 0, details: true },
): StatusRecord | undefined {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return undefined;
  }
  if (!value || typeof value !== 'object' || Array.isArray(value)) return undefined;
  const raw = value as Record<string, unknown>;
  const input = text(raw.input);
  const event = raw.event;
  if (input === undefined || typeof event !== 'string' || !EVENTS.has(event)) return undefined;
  const at = typeof raw.at === 'string' ? raw.at : '';
  const record: StatusRecord = {
    event: event as JournalEvent,
    at,
    atMs: Date.parse(at),
    input,
    output: text(raw.output) ?? '',
    file: options.file,
  };
  const jobId = text(raw.jobId);
  if (jobId !== undefined) record.jobId = jobId;
  const reason = text(raw.reason);
  if (reason !== undefined) record.reason = reason;
  if (!options.details) return record;
  const inputSha256 = text(raw.inputSha256);
  if (inputSha256 !== undefined) record.inputSha256 = inputSha256;
  if (event === 'done') {
    const outputSha256 = text(raw.outputSha256);
    if (outputSha256 !== undefined) record.outputSha256 = outputSha256;
    const voice = voiceOf(raw.voice);
    if (voice !== undefined) record.voice = voice;
  }
  return record;
}
