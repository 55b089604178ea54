/**
 * The local checks stage: an input that fails one is rejected with its reason and never uploaded.
 * Runs ahead of the uploads (its own small pool), so probing hides behind the network. Just before
 * an upload, `stillSame` compares the file with its check: a file replaced in between is checked again.
 */
import { statSync } from 'node:fs';
import { type ProbeLimits, probeFile } from './probe.js';
import type { Recorder } from './record.js';
import type { CheckedWork, SendWork } from './work.js';

/** Checks one input; undefined when it was rejected (and recorded so). */
export async function checkInput(
  work: SendWork | CheckedWork,
  limits: ProbeLimits,
  recorder: Recorder | undefined,
  warn?: (message: string) => void,
): Promise<CheckedWork | { kind: 'rejected'; reason: string }> {
  const probe = await probeFile(work.entry.input, limits);
  if (probe.ok && probe.warning) warn?.(`${work.entry.display}: ${probe.warning}`);
  if (!probe.ok) {
    const identity =
      probe.size !== undefined && probe.mtimeMs !== undefined
        ? { size: probe.size, mtimeMs: probe.mtimeMs }
        : undefined;
    await recorder?.rejected(work.entry, probe.reason, identity, work.last);
    return { kind: 'rejected', reason: probe.reason };
  }
  return {
    kind: 'checked',
    entry: work.entry,
    last: work.last,
    identity: { size: probe.size, mtimeMs: probe.mtimeMs },
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
