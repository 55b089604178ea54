/**
 * Fetching a job's files into a folder, as a plain function: each file name from the service is
 * reduced to a base name inside the output folder, existing files are skipped unless overwriting,
 * every file appears whole or not at all, and none can fill the disk (size-cap.ts). A local
 * file-system failure is that, never a network error: it is not fetched again, and one that no other
 * file can escape (a full disk) stops new downloads from starting.
 */
import type { Readable } from 'node:stream';
import { setMaxListeners } from 'node:events';
import { access, lstat } from 'node:fs/promises';
import type { BodySink } from '../api/client.js';
import { isTokenRefused } from '../api/errors.js';
import { NAME_MAX_BYTES, writeFileAtomically } from '../fs/atomic-write.js';
import { resolveInside } from '../fs/containment.js';
import { asLocalFsError, LocalFsError } from '../fs/errors.js';
import { foldLetterCase } from '../fs/letter-case.js';
import { safeBaseName } from '../fs/safe-name.js';
import { capped, downloadSizeCap } from './size-cap.js';

export interface DownloadOutcome {
  fileName: string;
  path: string | null;
  status: 'downloaded' | 'skipped' | 'failed';
  bytes?: number;
  reason?: string;
}

/** What of the service client a download needs. */
export interface DownloadClient {
  downloadJobFile<T>(jobId: string, fileName: string, sink: BodySink<T>, signal?: AbortSignal): Promise<T>;
}

/** Writes a body to `path` whole (temporary name, rename) and returns its size. */
export type FileWriter = (
  path: string,
  body: Readable | AsyncIterable<Uint8Array>,
  signal?: AbortSignal,
) => Promise<number>;

export interface DownloadRequest {
  jobId: string;
  fileNames: readonly string[];
  outDir: string;
  overwrite: boolean;
  /** Each file's duration in seconds, as the job's listing gives it: the bound of its size. */
  durations?: ReadonlyMap<string, number | null>;
  /** Whether the output folder ignores letter case (see fs/letter-case.ts): `Take.wav` is `take.wav` there. */
  ignoresCase?: boolean;
}

export interface DownloadDeps {
  client: DownloadClient;
  concurrency: number;
  /** Ctrl-C: aborts the transfers in flight (their temporary files are removed) and starts no more. */
  signal: AbortSignal;
  /** Where the bytes go; tests inject a failing one. */
  write?: FileWriter;
  /** Called as each file settles, in the order they settle. */
  onOutcome?: (outcome: DownloadOutcome) => void;
}

export interface DownloadResult {
  outcomes: DownloadOutcome[];
  /** The file-system failure that stopped new downloads (a full disk, a read-only folder). */
  stoppedBy?: LocalFsError;
  interrupted: boolean;
}

async function exists(path: string): Promise<boolean> {
  return access(path).then(
    () => true,
    () => false,
  );
}

export const NOT_STARTED_REASON = 'not started: downloads stopped after a file-system problem';
export const CASE_CLASH_REASON = (other: string): string =>
  `${other} is saved under the same name but for letter case, which the output folder ignores; download this file into another folder (-o)`;
export const FOLDER_IN_PLACE_REASON =
  'a folder of that name is in the output folder, so the file cannot be saved there; move the folder, or choose another -o';

export async function downloadFiles(deps: DownloadDeps, request: DownloadRequest): Promise<DownloadResult> {
  const write = deps.write ?? writeFileAtomically;
  const { default: pLimit } = await import('p-limit');
  const limit = pLimit(deps.concurrency);
  // A refused token stops everything at once; Ctrl-C too.
  const abort = new AbortController();
  const signal = AbortSignal.any([deps.signal, abort.signal]);
  // Every transfer in flight listens to these (`-c` up to 64): not a leak, and no Node.js warning.
  setMaxListeners(0, signal, deps.signal, abort.signal);
  const claimed = new Map<string, string>();
  let stoppedBy: LocalFsError | undefined;
  let refused: unknown;

  const fetchOne = async (fileName: string): Promise<DownloadOutcome> => {
    if (signal.aborted) return { fileName, path: null, status: 'failed', reason: 'interrupted' };
    if (stoppedBy) return { fileName, path: null, status: 'failed', reason: NOT_STARTED_REASON };
    const local = safeBaseName(fileName);
    if (!local) {
      return { fileName, path: null, status: 'failed', reason: 'the file name has no usable base name' };
    }
    // Such a name could never be saved: it fails before a signed URL is asked for and fetched.
    const nameBytes = Buffer.byteLength(local);
    if (nameBytes > NAME_MAX_BYTES) {
      return {
        fileName,
        path: null,
        status: 'failed',
        reason: `its name is ${nameBytes} bytes long, more than the ${NAME_MAX_BYTES} a file name may have`,
      };
    }
    // Where the folder ignores case, the second of `Take.wav` and `take.wav` would replace the first.
    const claim = request.ignoresCase ? foldLetterCase(local) : local;
    const other = claimed.get(claim);
    if (other !== undefined) {
      const sameName = safeBaseName(other) === local;
      const reason = sameName ? `${other} is saved under the same name` : CASE_CLASH_REASON(other);
      return { fileName, path: null, status: 'failed', reason };
    }
    claimed.set(claim, fileName);
    let path: string | null = null;
    try {
      path = await resolveInside(request.outDir, local);
      // A rename cannot replace a folder, --overwrite or not: fetching the file would only fail at
      // the end, and skipping it "as already there" would count a file never saved as done.
      if ((await lstat(path).catch(() => undefined))?.isDirectory()) {
        return { fileName, path, status: 'failed', reason: FOLDER_IN_PLACE_REASON };
      }
      if (!request.overwrite && (await exists(path))) {
        return {
          fileName,
          path,
          status: 'skipped',
          reason: 'already exists (use --overwrite to replace it)',
        };
      }
      const dest = path;
      const cap = downloadSizeCap(request.durations?.get(fileName));
      const bytes = await deps.client.downloadJobFile(
        request.jobId,
        fileName,
        ({ body, contentLength }) =>
          write(dest, capped(body, cap, contentLength), signal).catch((error: unknown) => {
            throw asLocalFsError(error, dest, 'writing');
          }),
        signal,
      );
      return { fileName, path, status: 'downloaded', bytes };
    } catch (error) {
      if (isTokenRefused(error)) {
        refused ??= error;
        abort.abort(error);
      }
      if (refused !== undefined) return { fileName, path, status: 'failed', reason: 'the token was refused' };
      if (deps.signal.aborted) return { fileName, path, status: 'failed', reason: 'interrupted' };
      if (error instanceof LocalFsError && error.stopsBatch) stoppedBy ??= error;
      return { fileName, path, status: 'failed', reason: (error as Error).message };
    }
  };

  // A name given twice (a listing that repeats an item, an argument typed twice) is one file, fetched
  // and reported once: the work asked for is done, so it is no failure.
  const fileNames = [...new Set(request.fileNames)];
  // Every transfer settles (and removes its temporary file) before a refused token is thrown.
  const outcomes = await Promise.all(
    fileNames.map((name) =>
      limit(async () => {
        const outcome = await fetchOne(name);
        if (refused === undefined) deps.onOutcome?.(outcome);
        return outcome;
      }),
    ),
  );
  if (refused !== undefined) throw refused;
  return { outcomes, ...(stoppedBy ? { stoppedBy } : {}), interrupted: deps.signal.aborted };
}
