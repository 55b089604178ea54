/**
 * A result published by a run that then died before its `done` line reached the disk (SIGKILL between
 * the rename and the line, power lost before the next flush). Its input's last line is `uploading`,
 * saying no output stood at its place as that upload began, and an output stands there now: that
 * upload published it, since a result is renamed into place only once verified, and under the lock
 * no other run writes there. The next run checks it as it checks an answer (a whole WAV within the
 * tolerance of the input's duration, the file no older than the upload) and records it done, with its
 * hashes: no upload, no look-up among the service's jobs (a synchronous answer leaves no job to
 * find), and the manifest lists it. Before, such an output was left unvouched for, and every later
 * run listed the service's jobs looking for it.
 */
import { lstat } from 'node:fs/promises';
import { describeFsError } from '../fs/errors.js';
import { formatLength } from '../output/format.js';
import { messageOf } from './engine.js';
import type { Engine } from './engine.js';
import type { PlanEntry } from './plan.js';
import { probeFile } from './probe.js';
import { ResultRejectedError } from './result-rejected.js';
import { verifyResultFile } from './verify.js';
import type { Identity, Work } from './work.js';

/** How much older than its upload's start an output may look: file systems keep times coarsely. */
const CLOCK_GRAIN_MS = 2000;

/** Why the output cannot be taken for the upload's result, or undefined. */
async function notItsResult(entry: PlanEntry, startedMs: number): Promise<string | undefined> {
  try {
    const info = await lstat(entry.output);
    if (!info.isFile()) return 'it is not a regular file';
    if (info.mtimeMs < startedMs - CLOCK_GRAIN_MS) return 'it is older than the upload';
    return undefined;
  } catch (error) {
    return describeFsError(error);
  }
}

/**
 * Records the output as the interrupted upload's result when it checks out (the outcome is `done`).
 * Otherwise the file fails, unrecorded: the output is left as it is (vredact cannot vouch for it, so
 * it does not overwrite it unasked), and each run says so until `--overwrite` redoes it.
 */
export async function adoptOutput(
  engine: Engine,
  entry: PlanEntry,
  identity: Identity,
  startedMs: number,
): Promise<Work> {
  const left = (why: string): Work => {
    engine.recorder.failedUnrecorded(
      entry,
      `its upload was cut short and an output stands at its place, but not its result (${why}): left as it is (--overwrite redoes it)`,
    );
    return { kind: 'settled', entry };
  };
  const stale = await notItsResult(entry, startedMs);
  if (stale) return left(stale);
  const input = await probeFile(entry.input, engine.limits);
  if (!input.ok) return left(`the input: ${input.reason}`);
  if (input.size !== identity.size || input.mtimeMs !== identity.mtimeMs) return left('the input changed');
  let output;
  try {
    output = await verifyResultFile(entry.output, {
      durationSec: input.durationSec,
      tolerance: engine.tolerance,
      upload: { sha256: input.sha256, path: entry.input },
    });
  } catch (error) {
    // The checks speak of an answer ("the service's result is …"): here it is the file on disk.
    return left(
      error instanceof ResultRejectedError
        ? error.message.replace(/^the service's result/, 'the output')
        : messageOf(error),
    );
  }
  engine.log.debug(
    `${entry.display}: its result (${formatLength(output.durationSec)}) was saved before the run that sent it stopped; recorded done`,
  );
  await engine.recorder.done(entry, identity, {
    via: 'sync',
    bytes: output.bytes,
    outputSha256: output.sha256,
    inputSha256: input.sha256,
    recovered: true,
  });
  return { kind: 'settled', entry };
}
