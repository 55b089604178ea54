/**
 * What the engine tells the report: each file's final outcome as soon as it is known, and snapshots
 * of progress. The shapes live here so the engine and the report import neither each other.
 */

export type Status = 'done' | 'skipped' | 'rejected' | 'failed' | 'pending';
/** The statuses of `--dry-run`: what a real run would do. */
export type DryRunStatus = 'would-send' | 'would-collect' | 'skipped' | 'rejected';

export interface Outcome {
  /** The input as shown to the user (relative to the working folder when inside it). */
  input: string;
  /** The output as shown to the user; empty when there is none (a missing input). */
  output: string;
  status: Status | DryRunStatus;
  reason?: string;
  jobId?: string;
  /** Skipped because `--min-age` left it for a later run (modified too recently), not done. */
  tooRecent?: boolean;
  /**
   * Skipped as a hard link of a file sent (or done) under another path: that path's input, as shown.
   * Such a link has no output of its own: `output` is that link's (empty when not known).
   */
  sameAs?: string;
  /** Pending, but taken by the service (accepted without naming its job): what --no-wait asks for. */
  submitted?: boolean;
}

/** A snapshot of a run, for the live line and `--stats`. Counts are of inputs. */
export interface Progress {
  /** Inputs in this run (after the plan and the shard). */
  total: number;
  done: number;
  skipped: number;
  rejected: number;
  failed: number;
  pending: number;
  /** Still to be checked or sent. */
  queued: number;
  /** Uploads under way. */
  inFlight: number;
  /** Asynchronous jobs being waited for. */
  waiting: number;
  /** Files begun (sent, or their job waited for) and not settled yet. */
  underWay: number;
  /** When the newest of those was begun (ms since the epoch). */
  newestBegunAt?: number | undefined;
  /** How long a file has taken from its start to its outcome, on average so far (ms). */
  typicalFileMs?: number | undefined;
  /** Bytes of the inputs sent so far (uploads finished, plus what is streamed of those under way). */
  bytesSent: number;
  /** Bytes of all the inputs this run will send (known after the local checks; grows as they finish). */
  bytesTotal: number;
  /** When the run started (ms since the epoch). */
  startedAt: number;
}

export type Counts = Record<Status, number>;
export type DryRunCounts = Record<DryRunStatus, number>;
