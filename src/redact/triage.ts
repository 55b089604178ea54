/**
 * The "decide from the journal" stage: for each planned input, its size and time on disk and what the
 * journals say give skip, reject, send or collect. Interrupted uploads are looked up among the
 * service's jobs before this stage runs (see reconcile.ts); `found` holds what that gave.
 */
import { existsSync, statSync } from 'node:fs';
import { type Decision, decide, skipReason } from './decide.js';
import type { JournalState } from './journal-read.js';
import { sameFileReason } from './hard-links.js';
import type { HardLinkRule } from './journaled-links.js';
import type { MinAgeRule } from './min-age.js';
import { isFolderAt, type OutputPresence } from './output-presence.js';
import type { PlanEntry } from './plan.js';
import type { FoundJob } from './reconcile.js';
import type { Identity, Work } from './work.js';

/** Why --dry-run cannot say more about an input whose upload was cut short. */
export const INTERRUPTED_NOTE =
  'an earlier upload was interrupted; it will be looked up first among the service jobs';

/**
 * The input's size and time: as its discovery's lstat saw them, or (a link, a named file not found
 * that way) from a stat. Synchronous on purpose: a re-run over 100,000 files asks for 100,000 of
 * them, and the promise API (an error object with a stack for every missing file) costs several
 * times as much; a local stat takes microseconds.
 */
function inputIdentity(entry: PlanEntry): { size: number; mtimeMs: number } | undefined {
  if (entry.seenSize !== undefined && entry.seenSize >= 0) {
    return { size: entry.seenSize, mtimeMs: entry.seenMtimeMs ?? -1 };
  }
  try {
    const info = statSync(entry.input, { throwIfNoEntry: false });
    return info ? { size: info.size, mtimeMs: info.mtimeMs } : undefined;
  } catch {
    return undefined;
  }
}

export interface TriageOptions {
  journal: JournalState;
  fingerprint: string;
  overwrite: boolean;
  /** Jobs found for interrupted uploads (by real path); undefined in a dry run, which asks no one. */
  found: ReadonlyMap<string, FoundJob> | undefined;
  /** Where outputs are looked for in folder listings (else one at a time). */
  outputs?: OutputPresence | undefined;
  /**
   * Checks and records the output an interrupted upload published (adopt.ts); undefined in a dry
   * run, which writes nothing: the input is then shown skipped, saying what a run will do.
   */
  adopt?: ((entry: PlanEntry, identity: Identity, startedMs: number) => Promise<Work>) | undefined;
  /** `--min-age`: an input to send that was modified too recently is left for a later run. */
  minAge?: MinAgeRule | undefined;
  /** A file of more than one hard link is sent once, as one of its links (hard-links.ts). */
  hardLinks?: HardLinkRule | undefined;
}

/** Why --dry-run shows an input whose interrupted upload left its output: a run checks and records it. */
export const ADOPT_NOTE =
  'its upload was cut short after its result was saved: a run checks that output and records it done';

/** The journal's decision for one input (used by the reconcile step too). */
export async function decisionFor(entry: PlanEntry, options: TriageOptions) {
  const info = inputIdentity(entry);
  const record = options.journal.latest.getFor(entry.realPath, entry.row);
  if (record) entry.journaledAtMs = Date.parse(record.at);
  const decision: Decision = decide({
    record,
    interrupted: options.journal.interrupted.get(entry.realPath, entry.row),
    size: info?.size ?? -1,
    mtimeMs: info?.mtimeMs ?? -1,
    voiceFingerprint: options.fingerprint,
    // Only asked when the journal cannot settle it: a done input whose output went missing.
    outputExists:
      !record || record.event === 'done' || record.event === 'uploading'
        ? (options.outputs?.exists(entry) ?? existsSync(entry.output))
        : false,
    overwrite: options.overwrite,
  });
  return { decision, record, identity: { size: info?.size ?? 0, mtimeMs: info?.mtimeMs ?? 0 } };
}

/**
 * Why an input to send cannot be: a folder stands where its output goes, which the rename that
 * publishes an output cannot replace. Sent, it failed after the upload, every run. (An input with a
 * job to collect keeps it: its record must not be replaced by a rejection.)
 */
function outputBlocked(entry: PlanEntry, decision: Decision, outputs: OutputPresence | undefined) {
  const sending =
    decision.action === 'send' || (decision.action === 'skip' && decision.why === 'output-exists');
  if (!sending) return undefined;
  const folder = outputs?.isFolder(entry) ?? isFolderAt(entry.output);
  return folder
    ? `a folder stands where its output goes (${entry.outputDisplay}): move it, or choose another output folder (-o)`
    : undefined;
}

/** Whether the decision sends the input this run (an interrupted upload whose job is not found is sent). */
function sends(entry: PlanEntry, decision: Decision, options: TriageOptions): boolean {
  if (decision.action === 'send') return true;
  return (
    decision.action === 'reconcile' &&
    decision.otherwise.action === 'send' &&
    options.found?.get(entry.realPath) === undefined
  );
}

export async function triage(entry: PlanEntry, options: TriageOptions): Promise<Work> {
  if (entry.rejected) return { kind: 'rejected', entry, reason: entry.rejected };
  const { decision, record, identity } = await decisionFor(entry, options);
  const sending = sends(entry, decision, options);
  // Only what would be sent gives way to another link: a job of this link's own is still collected.
  const sentLink = sending
    ? options.hardLinks?.sentLinkFor(entry.row, entry.realPath, identity, options.overwrite)
    : undefined;
  if (sentLink !== undefined)
    return { kind: 'skipped', entry, reason: sameFileReason(sentLink), sameAs: sentLink };
  // Too recent for --min-age: left before any check, so that what is still being written is judged
  // by nothing this run. Skips and jobs to collect go on: they send nothing.
  const left = sending ? options.minAge?.leftReason(identity.mtimeMs, entry.display) : undefined;
  if (left !== undefined) return { kind: 'skipped', entry, reason: left, tooRecent: true };
  const blocked = outputBlocked(entry, decision, options.outputs);
  if (blocked) return { kind: 'rejected', entry, reason: blocked };
  switch (decision.action) {
    case 'skip':
      return decision.why === 'output-exists'
        ? { kind: 'skipped', entry, reason: skipReason(decision), unvouched: true }
        : { kind: 'skipped', entry, reason: skipReason(decision) };
    case 'send':
      return decision.doneIfSameBytes
        ? { kind: 'send', entry, last: record, doneIfSameBytes: decision.doneIfSameBytes }
        : { kind: 'send', entry, last: record };
    case 'collect':
      return {
        kind: 'collect',
        entry,
        jobId: decision.jobId,
        uploadName: decision.uploadName,
        identity,
        durationSec: decision.durationSec,
        inputSha256: decision.inputSha256,
        fresh: false,
        ...(decision.linkMisses !== undefined ? { linkMisses: decision.linkMisses } : {}),
      };
    case 'adopt':
      return options.adopt
        ? options.adopt(entry, identity, decision.startedMs)
        : { kind: 'skipped', entry, reason: ADOPT_NOTE };
    case 'reconcile': {
      const found = options.found?.get(entry.realPath);
      if (found) {
        return {
          kind: 'collect',
          entry,
          jobId: found.jobId,
          uploadName: found.uploadName,
          identity,
          durationSec: found.durationSec,
          inputSha256: found.inputSha256,
          fresh: false,
          reconciled: true,
        };
      }
      const note = options.found ? undefined : INTERRUPTED_NOTE;
      if (decision.otherwise.action === 'skip') {
        const reason = skipReason(decision.otherwise);
        return { kind: 'skipped', entry, reason: note ? `${reason}; ${note}` : reason };
      }
      return { kind: 'send', entry, last: record, ...(note ? { note } : {}) };
    }
  }
}
