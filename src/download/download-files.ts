/**
 * Fetching a job's files into a folder, as a plain function: each file name from the service is
 * reduced to a base name inside the output folder, existing files are skipped unless overwriting,
 * every file appears whole and verified or not at all (verified-download.ts), and none can fill the
 * disk (size-cap.ts). A file is not
 * fetched, nor any after it, when the output's disk has no room for it beside the files on their way
 * (fs/free-space.ts): by its listed duration before it is asked for, by its announced length once it
 * comes, or, announced with none, as its bytes come (file-room.ts). A local file-system failure is that, never a network error: it is not fetched again, and
 * one that no other file can escape (a full disk) stops new downloads from starting. The files are
 * pulled by a fixed pool as the listing comes (pull-pool.ts): memory does not grow with their number
 * but for their names (name-claims.ts).
 */
import type { Readable } from 'node:stream';
import { setMaxListeners } from 'node:events';
import { lstat } from 'node:fs/promises';
import type { BodySink, RequestSignals } from '../api/client.js';
import { isTokenRefused, NotSentError } from '../api/errors.js';
import { messageOf, messageWithHint } from '../errors.js';
import { NAME_MAX_BYTES, writeFileAtomically } from '../fs/atomic-write.js';
import { resolveInside } from '../fs/containment.js';
import { asLocalFsError, LocalFsError } from '../fs/errors.js';
import { NoRoomOnDisk, OutputSpace, type RoomWords } from '../fs/free-space.js';
import { safeBaseName } from '../fs/safe-name.js';
import type { Interrupt } from '../interrupt.js';
import { NameClaims } from './name-claims.js';
import { type ItemSource, runPullPool } from './pull-pool.js';
import { FileRoom } from './file-room.js';
import { capped, downloadSizeCap } from './size-cap.js';
import { alreadyThere, verifiedDownload } from './verified-download.js';

export interface DownloadOutcome {
  fileName: string;
  path: string | null;
  /**
   * `pending`: not saved for a stop, not for a fault of its own: never started (the run stopped before
   * its turn), aborted in flight by a second interrupt, or given up by the first while it waited to be
   * tried again. The same command run again fetches it.
   */
  status: 'downloaded' | 'skipped' | 'failed' | 'pending';
  bytes?: number;
  reason?: string;
}

/** What of the service client a download needs. */
export interface DownloadClient {
  downloadJobFile<T>(jobId: string, fileName: string, sink: BodySink<T>, how?: RequestSignals): Promise<T>;
}

/** Writes a body to `path` whole (temporary name, rename) and returns its size. */
export type FileWriter = (
  path: string,
  body: Readable | AsyncIterable<Uint8Array>,
  signal?: AbortSignal,
) => Promise<number>;

/** One file to fetch: a name the service gave or the user typed, and its listed duration if any. */
export interface DownloadItem {
  /** The name shown, and saved under: a part of the token in the service's name is masked in it. */
  fileName: string;
  /** The name as the service gave it, where it differs from `fileName`: what the service is asked for. */
  givenFileName?: string;
  /** Its duration in seconds, as the job's listing gives it: the bound of its size. */
  duration?: number | null;
  /** Its `audio_duration` as listed (unit not shown): what its verified duration is held to. */
  listedDuration?: number | null;
  /**
   * Set for an item listed with no name as text (`fileName` empty): which item, and what it has
   * instead. It cannot be asked for, so it fails, alone.
   */
  nameless?: string;
}

export interface DownloadRequest {
  jobId: string;
  /** The files, as the job's listing streams them or as named (pull-pool.ts). */
  source: ItemSource<DownloadItem>;
  outDir: string;
  overwrite: boolean;
  /** Whether the output folder ignores letter case (see fs/letter-case.ts): `Take.wav` is `take.wav` there. */
  ignoresCase?: boolean;
}

export interface DownloadDeps {
  client: DownloadClient;
  concurrency: number;
  /**
   * The interrupt rule (interrupt.ts): `stop` starts no more files, gives up those only waiting to be
   * tried again, and lets those in flight finish; `abort` aborts them (their temporary files are removed).
   */
  signals: Interrupt;
  /** Where the bytes go; tests inject a failing one. */
  write?: FileWriter;
  /** The room claimed on the output's disk by the files on their way; tests inject one that tells their free space. */
  space?: OutputSpace;
  /** Told each file as it settles, in the order they settle; awaited (a full stdout holds the pool). */
  onOutcome?: (outcome: DownloadOutcome) => void | Promise<void>;
}

export interface DownloadResult {
  /** What stopped new downloads: a file-system failure (a full disk, a read-only folder), or no room for the next file. */
  stoppedBy?: LocalFsError | NoRoomOnDisk;
  interrupted: boolean;
}

// Why a file is pending: what stopped the run before its turn.
export const NOT_STARTED_REASON = 'not started: downloads stopped after a file-system problem';
export const NO_ROOM_NOT_STARTED_REASON = 'not started: downloads stopped: not enough free space';
export const INTERRUPTED_NOT_STARTED_REASON = 'not started: interrupted';
/**
 * Why a file aborted in flight by a second interrupt, or given up by the first while it waited to be
 * tried again, is pending: `redact`'s words for such an upload.
 */
export const INTERRUPTED_IN_FLIGHT_REASON = 'not finished: interrupted';
/** What a download says when the next file has no room (fs/free-space.ts holds the rule). */
export const FILE_ROOM: RoomWords = {
  noun: 'file',
  fix: (folder) =>
    `free some space on ${folder}, or download into another folder (-o), then run the same command again`,
};
/** What to do about a file whose name another file of the run took: the run's order would take it again. */
const ANOTHER_FOLDER =
  'download it by its name into another folder: `vredact download <jobId> <fileName> -o <folder>`';
export const CASE_CLASH_REASON = (other: string): string =>
  `${other} is saved under the same name but for letter case, which the output folder ignores; ${ANOTHER_FOLDER}`;
export const SAME_NAME_REASON = (other: string): string =>
  `${other} is saved under the same name; ${ANOTHER_FOLDER}`;
/** A name no file can be saved under, here or elsewhere: only the service can give another. */
const UNSAVABLE = "report the listing to the service's operators";
export const NO_BASE_NAME_REASON = `the file name has no usable base name; ${UNSAVABLE}`;
export const NAME_TOO_LONG_REASON = (bytes: number): string =>
  `its name is ${bytes} bytes long, more than the ${NAME_MAX_BYTES} a file name may have; ${UNSAVABLE}`;
export const NAMELESS_REASON = (which: string): string =>
  `${which}; it cannot be asked for without a usable name; ${UNSAVABLE}`;
export const ALREADY_THERE_REASON = 'already exists (use --overwrite to replace it)';
export const NOT_WHOLE_THERE_REASON =
  'already in the output folder, but not a whole WAV (an older vredact saved error pages so), so it was neither skipped nor replaced; to fetch it again over it: `vredact download <jobId> <fileName> --overwrite`';
export const FOLDER_IN_PLACE_REASON =
  'a folder of that name is in the output folder, so the file cannot be saved there; move the folder, or choose another -o';

export async function downloadFiles(deps: DownloadDeps, request: DownloadRequest): Promise<DownloadResult> {
  const write = deps.write ?? writeFileAtomically;
  // A refused token stops everything at once: no file is started, those in flight are aborted.
  const refusal = new AbortController();
  const stop = AbortSignal.any([deps.signals.stop, refusal.signal]);
  const signal = AbortSignal.any([deps.signals.abort, refusal.signal]);
  // Every transfer in flight listens to these (`-c` up to 64): not a leak, and no Node.js warning.
  setMaxListeners(0, signal, deps.signals.abort, refusal.signal);
  const claims = new NameClaims(request.ignoresCase === true);
  const space = deps.space ?? new OutputSpace(FILE_ROOM);
  let stoppedBy: LocalFsError | NoRoomOnDisk | undefined;
  let refused: unknown;

  /**
   * The name `fileName` is saved under, or, where it settles by its name alone, its outcome: a failure
   * (no name it could be saved under), or none for a name given twice (one file, reported once).
   */
  const claimName = ({
    fileName,
    nameless,
  }: DownloadItem): { local: string } | { outcome: DownloadOutcome | undefined } => {
    // Each such item is its own: not one name given twice.
    if (nameless !== undefined)
      return { outcome: { fileName, path: null, status: 'failed', reason: NAMELESS_REASON(nameless) } };
    const unsaved = (reason: string) => ({
      outcome:
        claims.settleUnsaved(fileName) === 'new'
          ? { fileName, path: null, status: 'failed' as const, reason }
          : undefined,
    });
    const local = safeBaseName(fileName);
    if (!local) return unsaved(NO_BASE_NAME_REASON);
    // Such a name could never be saved: it fails before a signed URL is asked for and fetched.
    const nameBytes = Buffer.byteLength(local);
    if (nameBytes > NAME_MAX_BYTES) return unsaved(NAME_TOO_LONG_REASON(nameBytes));
    // Where the folder ignores case, the second of `Take.wav` and `take.wav` would replace the first.
    const claim = claims.claim(fileName, local);
    if (claim.kind === 'repeat') return { outcome: undefined };
    if (claim.kind === 'taken') {
      const sameName = safeBaseName(claim.other) === local;
      const reason = sameName ? SAME_NAME_REASON(claim.other) : CASE_CLASH_REASON(claim.other);
      return { outcome: { fileName, path: null, status: 'failed', reason } };
    }
    return { local };
  };

  /** A file the run stopped before (interrupted, or new downloads stopped): pending, for the next run. */
  const notStarted = (fileName: string): DownloadOutcome => {
    const reason = !stoppedBy
      ? INTERRUPTED_NOT_STARTED_REASON
      : stoppedBy instanceof NoRoomOnDisk
        ? NO_ROOM_NOT_STARTED_REASON
        : NOT_STARTED_REASON;
    return { fileName, path: null, status: 'pending', reason };
  };

  /** The file's outcome; none for a name given twice (one file, fetched and reported once). */
  const fetchOne = async (item: DownloadItem): Promise<DownloadOutcome | undefined> => {
    const { fileName, duration } = item;
    const named = claimName(item);
    if ('outcome' in named) return named.outcome;
    const { local } = named;
    if (stoppedBy) return notStarted(fileName);
    let path: string | null = null;
    const room = new FileRoom(space, request.outDir, fileName);
    try {
      path = await resolveInside(request.outDir, local);
      // A rename cannot replace a folder, --overwrite or not: fetching the file would only fail at
      // the end, and skipping it "as already there" would count a file never saved as done.
      if ((await lstat(path).catch(() => undefined))?.isDirectory()) {
        return { fileName, path, status: 'failed', reason: FOLDER_IN_PLACE_REASON };
      }
      const there = request.overwrite ? 'none' : await alreadyThere(path, local);
      if (there === 'stands') return { fileName, path, status: 'skipped', reason: ALREADY_THERE_REASON };
      // Neither done (skipped) nor replaced unasked (the file may be someone's): failed, saying how.
      if (there === 'not-whole') return { fileName, path, status: 'failed', reason: NOT_WHOLE_THERE_REASON };
      const dest = path;
      const cap = downloadSizeCap(duration);
      // Room for it before it is asked for, where its listed duration tells what it needs. (Another
      // file may have stopped the downloads while this one was looked at.)
      if (stoppedBy) return notStarted(fileName);
      if (cap.expectedBytes !== undefined) room.claim(cap.expectedBytes);
      const bytes = await deps.client.downloadJobFile(
        request.jobId,
        item.givenFileName ?? fileName,
        ({ body, contentLength, contentType }) => {
          const checked = verifiedDownload(
            { body: capped(body, cap, contentLength), contentLength, contentType },
            { fileName: local, listedDuration: item.listedDuration, cap },
          );
          // Its announced length replaces the estimate once past its cap (one past it fails alone in
          // `capped`); a body of none claims its room as it comes, beyond the estimate.
          const roomed =
            contentLength === undefined
              ? room.asItComes(checked, cap.expectedBytes)
              : room.announced(checked, contentLength);
          return write(dest, roomed, signal).catch((error: unknown) => {
            throw asLocalFsError(error, dest, 'writing');
          });
        },
        // A first interrupt gives up a request that only waits (for the gate, or to be tried again).
        { signal, stopWaiting: stop },
      );
      return { fileName, path, status: 'downloaded', bytes };
    } catch (error) {
      if (isTokenRefused(error)) {
        refused ??= error;
        refusal.abort(error);
      }
      if (refused !== undefined) return { fileName, path, status: 'failed', reason: 'the token was refused' };
      // Aborted by a second interrupt (its temporary file removed), or given up by the first while it
      // waited to be tried again (NotSentError): nothing wrong with it, and the next run fetches it,
      // as it does a file never started.
      if (deps.signals.abort.aborted || error instanceof NotSentError)
        return { fileName, path: null, status: 'pending', reason: INTERRUPTED_IN_FLIGHT_REASON };
      if ((error instanceof LocalFsError && error.stopsBatch) || error instanceof NoRoomOnDisk) {
        stoppedBy ??= error;
        // What to do is said once, for the run (see the command), not on each file it stopped.
        return { fileName, path, status: 'failed', reason: messageOf(error) };
      }
      // One line a file: what went wrong and what to do next (a link to ask for afresh, a service to wait for).
      return { fileName, path, status: 'failed', reason: messageWithHint(error) };
    } finally {
      // Written (its bytes are in what statfs tells now) or not coming: its claim is given back.
      room.release();
    }
  };

  // Every transfer settles (and removes its temporary file) before a refused token is thrown.
  await runPullPool({
    source: request.source,
    workers: deps.concurrency,
    stop,
    countBusy: (busy) => deps.signals.countInFlight?.(() => ({ transfers: busy(), jobs: 0 })),
    work: async (item) => {
      const outcome = await fetchOne(item);
      if (outcome && refused === undefined) await deps.onOutcome?.(outcome);
    },
    // Listed (or named) before an interrupt, never started: said so, not left out of the report.
    untaken: async (item) => {
      const named = claimName(item);
      const outcome = 'outcome' in named ? named.outcome : notStarted(item.fileName);
      if (outcome && refused === undefined) await deps.onOutcome?.(outcome);
    },
  }).catch((error: unknown) => {
    // The listing, cut by the refusal, fails too: the refusal is what to say.
    if (refused === undefined) throw error;
  });
  if (refused !== undefined) throw refused;
  return { ...(stoppedBy ? { stoppedBy } : {}), interrupted: deps.signals.stop.aborted };
}

/** A source of the files named (on the command line): all handed at once, they are few. */
export function namedFiles(fileNames: readonly string[]): ItemSource<DownloadItem> {
  return async (sink) => {
    for (const fileName of fileNames) sink.add({ fileName });
  };
}
