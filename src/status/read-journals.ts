/**
 * Reads every journal of an output folder (`journal.jsonl`, and `journal.<i>-of-<n>.jsonl` of
 * shards) into the last record of each input, with the run's own reader and rules: within one file a
 * later line wins (it was appended later, whatever the clock said), across files the later `at`, and
 * a `withdrawn` line takes back the upload it names.
 */
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { CliError } from '../errors.js';
import { asLocalFsError, errnoCode, LocalFsError } from '../fs/errors.js';
import { emptyJournalState, MAX_LINE_BYTES, readJournalFiles } from '../redact/journal-read.js';
import { JOURNAL_FILE, type JournalRecord, lockNameOfJournal, STATE_DIR } from '../redact/journal.js';
import { type RunUnderWay, runsUnderWay } from '../redact/lock.js';
import type { Scrub } from '../api/scrub.js';
import { type CutShortView, cutShortView } from './cut-short.js';
import { outputThere } from './earlier-output.js';
import { type FileState, stateOfEvent, StatusTable, statusRecordOf, type StatusRecord } from './records.js';

/** The last record of each input, by its real path, as status shows it (built when asked for). */
export interface LatestRecords {
  readonly size: number;
  get(input: string): StatusRecord | undefined;
  /** The state of an input's last record, without building it. */
  stateOf(input: string): FileState | undefined;
  /** Whether an output stands for the input (see earlier-output.ts): a row of the manifest. */
  hasStandingOutput(input: string): boolean;
  keys(): IterableIterator<string>;
}

export interface JournalsRead {
  /** The journal files read, by name, in the order they were read. */
  files: string[];
  latest: LatestRecords;
  lines: number;
  /** Lines that are not records (damage, a torn last line) or over the size bound: skipped. */
  unreadable: number;
  /** The journals, by name, whose last line has no line feed and could not be read (in `unreadable`). */
  tornTails: string[];
}

/** The journals of `outDir`, sorted by name; undefined when it has no state folder at all. */
export async function listJournals(outDir: string): Promise<string[] | undefined> {
  const stateDir = join(outDir, STATE_DIR);
  let names: string[];
  try {
    names = await readdir(stateDir);
  } catch (error) {
    if (errnoCode(error) === 'ENOENT' || errnoCode(error) === 'ENOTDIR') return undefined;
    throw readingError(error, stateDir);
  }
  return names.filter((name) => JOURNAL_FILE.test(name)).sort();
}

const READ_ACCESS_HINT =
  'status reads every journal of the folder: run it as the user that runs `vredact redact` into it, or give yours read access to its .vredact folder';

/**
 * A local failure to read the journals, named with its path. Status only reads: a run's hint for a
 * folder it may not use (choose one you can write to) would send the user to another folder.
 */
export function readingError(error: unknown, path: string): unknown {
  const local = asLocalFsError(error, path, 'reading');
  if (!(local instanceof LocalFsError) || (local.code !== 'EACCES' && local.code !== 'EPERM')) return local;
  return new CliError(local.message, local.exitCode, READ_ACCESS_HINT);
}

export interface ReadOptions {
  /** Keep the hashes and the voice of each record (for the manifest). */
  details: boolean;
  maxLineBytes?: number;
  /**
   * When each run that holds a lock of the folder started (ms), by the lock's name: an upload its
   * journal began since is in flight, not cut short.
   */
  runsUnderWay?: ReadonlyMap<string, number>;
  /**
   * Applied to every reason shown: a journal of an older version may hold a service's answer that
   * echoed the token, scrubbed less then than now.
   */
  scrub?: Scrub;
}

/** Whether an `uploading` record, read from the journal of index `source`, is a live run's upload. */
type InFlight = (record: JournalRecord, source: number | undefined) => boolean;

/**
 * An upload is in flight when a run holds its journal's lock and began it after that run started;
 * one begun before is a dead run's, cut short, which the live run will take as such.
 */
function inFlightBy(names: readonly string[], runs: ReadonlyMap<string, number> | undefined): InFlight {
  const since = names.map((name) => runs?.get(lockNameOfJournal(name)));
  return (record, source) => {
    const started = source === undefined ? undefined : since[source];
    return started !== undefined && Date.parse(record.at) >= started;
  };
}

function latestView(
  outDir: string,
  store: StatusTable,
  cutShort: CutShortView,
  inFlight: InFlight,
  scrub: Scrub,
): LatestRecords {
  const { details } = store;
  const scrubbed = (record: StatusRecord): StatusRecord =>
    record.reason === undefined ? record : { ...record, reason: scrub(record.reason) };
  // An input has one when its last record is not done; the file is looked for once per input asked.
  const earlierOutput = (input: string) => {
    const earlier = store.earlierOf(input);
    return earlier && outputThere(outDir, earlier.output) ? earlier : undefined;
  };
  const lastRecord = (input: string): StatusRecord | undefined => {
    const record = store.get(input);
    if (record?.event !== 'uploading') return record && statusRecordOf(record, details);
    if (inFlight(record, store.sourceOf(input)))
      return { ...statusRecordOf(record, details), inFlight: true };
    const done = cutShort.doneBefore(record);
    if (done) return statusRecordOf(done, details);
    const reason = cutShort.reason(record);
    return statusRecordOf(reason ? { ...record, reason } : record, details);
  };
  const view: LatestRecords = {
    get size() {
      return store.size;
    },
    get(input) {
      const last = lastRecord(input);
      const record = last && scrubbed(last);
      if (record === undefined || record.event === 'done') return record;
      const earlier = earlierOutput(input);
      return earlier ? { ...record, earlier: scrubbed(statusRecordOf(earlier, true)) } : record;
    },
    hasStandingOutput(input) {
      if (view.stateOf(input) === 'done') return true;
      return store.hasEarlier(input) && earlierOutput(input) !== undefined;
    },
    stateOf(input) {
      const event = store.eventOf(input);
      if (event === undefined || event === 'withdrawn') return undefined;
      if (event === 'uploading') {
        const record = store.get(input);
        if (record && inFlight(record, store.sourceOf(input))) return 'uploading';
        if (record && cutShort.doneBefore(record)) return 'done';
      }
      return stateOfEvent(event);
    },
    keys: () => store.keys(),
  };
  return view;
}

/** Reads the named journals of `outDir` once each, line by line, each line bounded. */
export async function readJournals(
  outDir: string,
  names: readonly string[],
  options: ReadOptions = { details: true },
): Promise<JournalsRead> {
  const stateDir = join(outDir, STATE_DIR);
  const store = new StatusTable(options.details);
  const paths = names.map((name) => join(stateDir, name));
  let state;
  try {
    state = await readJournalFiles(paths, emptyJournalState(store), {
      maxLineBytes: options.maxLineBytes ?? MAX_LINE_BYTES,
    });
  } catch (error) {
    throw readingError(error, (error as NodeJS.ErrnoException).path ?? stateDir);
  }
  const read = new Set(state.files.map((file) => file.path));
  const torn = new Set(state.files.filter((file) => file.tornTail).map((file) => file.path));
  return {
    files: names.filter((_, index) => read.has(paths[index] as string)),
    tornTails: names.filter((_, index) => torn.has(paths[index] as string)),
    latest: latestView(
      outDir,
      store,
      cutShortView(outDir, state.interrupted),
      inFlightBy(names, options.runsUnderWay),
      options.scrub ?? ((text) => text),
    ),
    lines: state.lines,
    unreadable: state.unreadable + state.oversized,
  };
}

/**
 * How many torn last lines are lines a run under way is writing as they were read (it holds their
 * journal's lock): not damage, and not a record yet. The locks are looked for again when one is not
 * held in `runs`, which were looked for before the journals were read: a run may have started since.
 */
export async function linesBeingWritten(
  outDir: string,
  tornTails: readonly string[],
  runs: readonly Pick<RunUnderWay, 'lock'>[],
): Promise<number> {
  const held = new Set(runs.map((run) => run.lock));
  const writing = () => tornTails.filter((name) => held.has(lockNameOfJournal(name))).length;
  if (writing() === tornTails.length) return writing();
  for (const run of await runsUnderWay(outDir)) held.add(run.lock);
  return writing();
}
