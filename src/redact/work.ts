/**
 * What a file is doing, as one discriminated union: each stage takes one kind and hands on the next.
 *
 *   decided: skipped | rejected | send | collect | settled (an interrupted upload's output adopted)
 *   send → (local checks) → checked → (upload) → done | collect | accepted
 *   checked → (upload, its answer lost: a 504, a connection dropped) → accepted, with `lost`
 *   accepted → (found among the jobs by its upload name) → collect
 *   collect → (wait, download, verify, write) → done
 */
import type { SentLink } from './hard-links.js';
import type { JournalRecord } from './journal.js';
import type { PlanEntry } from './plan.js';

/** An input's size and modification time: it is the same file as long as they are. */
export interface Identity {
  size: number;
  mtimeMs: number;
}

export type Work =
  | {
      kind: 'skipped';
      entry: PlanEntry;
      reason: string;
      /** Skipped for an output at its place that no record of its own vouches for (unvouched.ts). */
      unvouched?: boolean;
      /** Left for a later run by `--min-age` (min-age.ts). */
      tooRecent?: boolean;
      /** A hard link of a file sent (or done) under another path (hard-links.ts): no output of its own. */
      sameAs?: SentLink;
    }
  | {
      kind: 'rejected';
      entry: PlanEntry;
      reason: string;
      last?: JournalRecord | undefined;
      identity?: Identity;
    }
  | SendWork
  | CollectWork
  /** Its outcome already recorded by the stage that decided it (an output adopted: adopt.ts). */
  | { kind: 'settled'; entry: PlanEntry };

/** To be checked locally, then sent. */
export interface SendWork {
  kind: 'send';
  entry: PlanEntry;
  /** Its last journal record, if any. */
  last: JournalRecord | undefined;
  /** Shown with a dry run's would-send (an interrupted upload that a real run looks up first). */
  note?: string;
  /**
   * The done record of these bytes when only the file's time changed (decide.ts): its check hashes
   * the file, and bytes of that SHA-256 are skipped as done, not sent.
   */
  doneIfSameBytes?: JournalRecord | undefined;
}

/** Checked locally: these bytes, of this duration, are what is sent. */
export interface CheckedWork {
  kind: 'checked';
  entry: PlanEntry;
  last: JournalRecord | undefined;
  identity: Identity;
  /** What its content is, whatever its name says: its upload is named and typed so. */
  format: 'WAV' | 'MP3';
  durationSec: number;
  sha256: string;
  /**
   * The bytes checked, for a file small enough to keep (see probe.ts): the upload sends exactly these,
   * so what was sent is what was checked and hashed, with no second read of the file.
   */
  bytes?: Buffer | undefined;
  /** The name its upload carries, once its `uploading` line is on disk (see journalAhead in send.ts). */
  uploadName?: string | undefined;
}

/**
 * An upload the service accepted without naming its job: looked for among the service's jobs by its
 * upload name (accepted-jobs.ts), then collected as a job. Its journal keeps `uploading` until found.
 */
export interface AcceptedWork extends Omit<CollectWork, 'kind' | 'jobId' | 'fresh' | 'reconciled'> {
  kind: 'accepted';
  durationSec: number;
  /** When its upload began, in ms since the epoch: its job is no older (less the clocks' skew). */
  sinceMs: number;
  /**
   * Its upload failed with no answer of its fate (a gateway's 504, a connection dropped after the
   * request went out): the service may have made a job of it, or not. `reason`: the failure, as its
   * outcome says it when no job is found; `error`, for its reason with what the look met.
   */
  lost?: { reason: string; error: unknown; failedAtMs: number } | undefined;
}

/** An asynchronous job to wait for, download, verify and write. */
export interface CollectWork {
  kind: 'collect';
  entry: PlanEntry;
  jobId: string;
  /** The name its upload carried: the result is the other item of the job. */
  uploadName: string;
  identity: Identity;
  /** The input's measured duration, when the journal knows it (else it is measured again). */
  durationSec: number | undefined;
  inputSha256: string | undefined;
  /** Tries of its result's link that met no result in earlier runs (link-tries.ts). */
  linkMisses?: number | undefined;
  /** Submitted by this run (so --no-wait leaves it at once). */
  fresh: boolean;
  /** With --no-wait: why its first look did not find it (first-look.ts), told with its `pending` line. */
  notFoundAtFirstLook?: string;
  /** Found among the service's jobs for an interrupted upload: journaled `submitted` before waiting. */
  reconciled?: boolean;
  /** Gives back the room its upload claimed for the result (free-space.ts), once it has settled. */
  releaseSpace?: () => void;
}

/** An upload to look for among the jobs by its name: accepted without a job id, or its answer `lost`. */
export function acceptedWork(
  work: CheckedWork,
  uploadName: string,
  sinceMs: number,
  lost?: AcceptedWork['lost'],
): AcceptedWork {
  const { entry, identity, durationSec, sha256: inputSha256 } = work;
  return { kind: 'accepted', entry, uploadName, identity, durationSec, inputSha256, sinceMs, lost };
}
