/**
 * The local checks stage: an input that fails one is rejected with its reason and never uploaded.
 * Runs ahead of the uploads (its own small pool), so probing hides behind the network. Just before
 * an upload, `stillSame` compares the file with its check: a file replaced in between is checked again.
 */
import { statSync } from 'node:fs';
import { SAME_BYTES_REASON } from './decide.js';
import type { MinAgeRule } from './min-age.js';
import { type ProbeLimits, probeFile } from './probe.js';
import type { Recorder } from './record.js';
import type { CheckedWork, SendWork } from './work.js';

/** Left for a later run by `--min-age` (min-age.ts): not journaled, reported skipped by the caller. */
export interface LeftForLater {
  kind: 'left';
  reason: string;
}

/** The bytes its done record sent, under a new modification time: recorded done again, not sent. */
export interface SameBytes {
  kind: 'same-bytes';
  reason: string;
}

/**
 * Checks one input: rejected (and recorded so), found the bytes its done record sent (recorded done
 * with its new time, reported skipped), left for a later run when `minAge` finds it modified
 * too recently (a file that changed since it was decided: judged by the time its check read, before
 * its content, so that a recording still being written is not rejected for a header not yet fixed),
 * or checked.
 */
export async function checkInput(
  work: SendWork | CheckedWork,
  limits: ProbeLimits,
  recorder: Recorder | undefined,
  warn?: (message: string) => void,
  minAge?: MinAgeRule,
): Promise<CheckedWork | { kind: 'rejected'; reason: string } | LeftForLater | SameBytes> {
  const probe = await probeFile(work.entry.input, limits);
  const left =
    probe.mtimeMs !== undefined ? minAge?.leftReason(probe.mtimeMs, work.entry.display) : undefined;
  if (left !== undefined) return { kind: 'left', reason: left };
  if (probe.ok && probe.warning) warn?.(`${work.entry.display}: ${probe.warning}`);
  if (!probe.ok) {
    const identity =
      probe.size !== undefined && probe.mtimeMs !== undefined
        ? { size: probe.size, mtimeMs: probe.mtimeMs }
        : undefined;
    await recorder?.rejected(work.entry, probe.reason, identity, work.last);
    return { kind: 'rejected', reason: probe.reason };
  }
  const identity = { size: probe.size, mtimeMs: probe.mtimeMs };
  // The hash the check makes anyway (the file is read once): no second read for this rule.
  const done = work.kind === 'send' ? work.doneIfSameBytes : undefined;
  if (done !== undefined && done.inputSha256 === probe.sha256) {
    await recorder?.sameBytes(work.entry, identity, done);
    return { kind: 'same-bytes', reason: SAME_BYTES_REASON };
  }
  return {
    kind: 'checked',
    entry: work.entry,
    last: work.last,
    identity,
    format: probe.format,
    durationSec: probe.durationSec,
    sha256: probe.sha256,
    bytes: probe.bytes,
  };
}

/**
 * Whether the input is still the file that was checked (same size and modification time).
 * Synchronous on purpose: it lies between one upload's answer and the next upload, and a local stat
 * takes microseconds where a trip through the thread pool costs more.
 */
export function stillSame(work: CheckedWork): boolean {
  try {
    const info = statSync(work.entry.input, { throwIfNoEntry: false });
    return info !== undefined && info.size === work.identity.size && info.mtimeMs === work.identity.mtimeMs;
  } catch {
    return false;
  }
}
