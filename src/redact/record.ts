/**
 * The one place where a file's state is recorded: its journal line, its outcome for the report and
 * the progress counts (kept by the base class, progress-counts.ts). A journal that cannot be written
 * (a full disk) halts the batch: nothing new is sent, and the run ends with the file-system error
 * naming the journal.
 */
import { SAME_BYTES_REASON } from './decide.js';
import type { Halt } from './halt.js';
import type { SentLink } from './hard-links.js';
import type { Outcome } from './outcome.js';
import { type ProgressDeps, ProgressCounts } from './progress-counts.js';
import { doneTimeOf, type JournalEntry, type JournalRecord } from './journal.js';
import type { JournalWriter } from './journal-writer.js';
import type { PlanEntry } from './plan.js';
import type { AcceptedWork, CollectWork, Identity } from './work.js';

export interface RecorderDeps extends ProgressDeps {
  /** Undefined for a dry run: nothing is written. */
  journal: JournalWriter | undefined;
  fingerprint: string;
  fields: Readonly<Record<string, string>>;
  halt: Halt;
  emit: (outcome: Outcome) => void;
}

export class Recorder extends ProgressCounts {
  constructor(private readonly deps: RecorderDeps) {
    super(deps);
  }

  #base(entry: PlanEntry, identity: Identity) {
    return {
      input: entry.realPath,
      size: identity.size,
      mtimeMs: identity.mtimeMs,
      options: this.deps.fingerprint,
      output: entry.outputRel,
    };
  }

  /**
   * #base of a line that settles an input, dated after its latest line in any journal: between
   * journals the later `at` wins, and a shard's line from a clock set back since outranked later runs'
   * (a done file was sent again nightly). `uploading` keeps the clock: its job is looked up by it.
   */
  #settling(entry: PlanEntry, identity: Identity) {
    const floor = entry.journaledAtMs;
    const behind = floor !== undefined && floor >= this.deps.clock.now();
    return { ...(behind ? { at: new Date(floor + 1).toISOString() } : {}), ...this.#base(entry, identity) };
  }

  /** A line that must be on disk before the caller goes on; throws (and halts the batch) if it cannot be. */
  async #durable(entry: JournalEntry & { at?: string }): Promise<void> {
    if (!this.deps.journal) return;
    try {
      await this.deps.journal.append(entry, true);
    } catch (error) {
      this.deps.halt.stop(error);
      throw error;
    }
  }

  /** A line flushed with the next durable one or at the end; a failure halts the batch. */
  async #line(entry: JournalEntry & { at?: string }): Promise<void> {
    if (!this.deps.journal) return;
    await this.deps.journal.append(entry).catch((error: unknown) => this.deps.halt.stop(error));
  }

  /** `output`: where its redaction is, when that is not its own output (a hard link's, see skipped). */
  #finish(entry: PlanEntry, outcome: Omit<Outcome, 'input' | 'output'>, output = entry.outputDisplay): void {
    this.counted(entry, outcome.status);
    this.deps.emit({ input: entry.display, output, ...outcome });
  }

  /**
   * Journaled (and flushed) just before the upload starts: a crash after it is looked up by this name,
   * and an output that appears at a place that had none (`outputAbsent`) is this upload's (adopt.ts).
   */
  uploading(
    entry: PlanEntry,
    identity: Identity,
    upload: { uploadName: string; durationSec: number; inputSha256: string; outputAbsent: boolean },
  ) {
    const { outputAbsent, ...carried } = upload;
    return this.#durable({
      event: 'uploading',
      ...this.#base(entry, identity),
      ...carried,
      ...(outputAbsent ? { outputAbsent: true } : {}),
    });
  }

  /**
   * The `uploading` line of an upload whose answer was lost, again with `answerLost`, flushed before
   * its job is looked for: `status` reads only the journal, and said the file was being sent.
   */
  answerLost(work: AcceptedWork, outputAbsent: boolean) {
    return this.#durable({
      event: 'uploading',
      ...this.#base(work.entry, work.identity),
      uploadName: work.uploadName,
      ...(work.durationSec !== undefined ? { durationSec: work.durationSec } : {}),
      ...(work.inputSha256 ? { inputSha256: work.inputSha256 } : {}),
      ...(outputAbsent ? { outputAbsent: true } : {}),
      answerLost: true,
    });
  }

  /**
   * An `uploading` line journaled ahead whose upload never started (the batch stopped first): the
   * journal's record of the input is again what it was before that line, so the next run sends it
   * without looking for a job first. Not flushed on its own: lost in a crash, the look-up it saves
   * is made, finds nothing and the file is sent.
   */
  withdrawn(entry: PlanEntry, identity: Identity, uploadName: string) {
    return this.#line({ event: 'withdrawn', ...this.#base(entry, identity), uploadName });
  }

  submitted(
    entry: PlanEntry,
    identity: Identity,
    job: {
      jobId: string;
      uploadName: string;
      durationSec?: number | undefined;
      inputSha256?: string | undefined;
    },
    reconciled = false,
  ) {
    return this.#durable({
      event: 'submitted',
      ...this.#settling(entry, identity),
      jobId: job.jobId,
      uploadName: job.uploadName,
      ...(job.durationSec !== undefined ? { durationSec: job.durationSec } : {}),
      ...(job.inputSha256 ? { inputSha256: job.inputSha256 } : {}),
      ...(reconciled ? { reconciled: true } : {}),
    });
  }

  /**
   * The job's `submitted` line again, counting the tries of its result's link that met no result
   * (link-tries.ts): the next run takes the count up. Not flushed on its own: lost in a crash, one
   * try is not counted.
   */
  linkMissed(work: CollectWork, misses: number): Promise<void> {
    return this.#line({
      event: 'submitted',
      ...this.#settling(work.entry, work.identity),
      jobId: work.jobId,
      uploadName: work.uploadName,
      ...(work.durationSec !== undefined ? { durationSec: work.durationSec } : {}),
      ...(work.inputSha256 ? { inputSha256: work.inputSha256 } : {}),
      linkMisses: misses,
    });
  }

  async done(
    entry: PlanEntry,
    identity: Identity,
    result: {
      via: 'sync' | 'job';
      jobId?: string;
      bytes: number;
      outputSha256: string;
      inputSha256?: string | undefined;
      /** Checked by this run after the run that published it died first (adopt.ts). */
      recovered?: boolean;
    },
  ): Promise<void> {
    await this.#line({
      event: 'done',
      ...this.#settling(entry, identity),
      via: result.via,
      ...(result.jobId ? { jobId: result.jobId } : {}),
      bytes: result.bytes,
      ...(result.inputSha256 ? { inputSha256: result.inputSha256 } : {}),
      outputSha256: result.outputSha256,
      voice: this.deps.fields,
      ...(result.recovered ? { recovered: true } : {}),
    });
    this.#finish(entry, { status: 'done', ...(result.jobId ? { jobId: result.jobId } : {}) });
  }

  /**
   * A done file whose time alone changed, its bytes hashed to those its done line sent: that line
   * again, with the new time, so the next run skips it by size and time without hashing it. It keeps
   * when the redaction was done (`doneAt`): the manifest's `done_at` is that, not this run's time.
   */
  async sameBytes(entry: PlanEntry, identity: Identity, done: JournalRecord): Promise<void> {
    // Its own fields over the line's: the input, its size and new time, this run's options and output.
    const { v: _v, at: _at, ...kept } = done;
    await this.#line({
      ...kept,
      doneAt: doneTimeOf(done),
      ...this.#settling(entry, identity),
      event: 'done',
    });
    this.#finish(entry, { status: 'skipped', reason: SAME_BYTES_REASON });
  }

  /** Failed for good this time: the journal says so, and a re-run sends it again. */
  async failed(entry: PlanEntry, identity: Identity, reason: string, jobId?: string): Promise<void> {
    await this.#line({
      event: 'failed',
      ...this.#settling(entry, identity),
      reason,
      ...(jobId ? { jobId } : {}),
    });
    this.#finish(entry, { status: 'failed', reason, ...(jobId ? { jobId } : {}) });
  }

  /** Failed, but the journal keeps its last line (`uploading`: the next run looks for its job first). */
  failedUnrecorded(entry: PlanEntry, reason: string): void {
    this.#finish(entry, { status: 'failed', reason });
  }

  async rejected(
    entry: PlanEntry,
    reason: string,
    identity?: Identity,
    last?: JournalRecord | undefined,
  ): Promise<void> {
    const same =
      last?.event === 'rejected' &&
      last.reason === reason &&
      last.size === identity?.size &&
      last.mtimeMs === identity?.mtimeMs;
    if (identity && !same)
      await this.#line({ event: 'rejected', ...this.#settling(entry, identity), reason });
    this.#finish(entry, { status: 'rejected', reason });
  }

  /**
   * `tooRecent`: left for a later run by `--min-age`, not done (the summary counts it apart).
   * `sameAs`: a hard link of a file sent (or done) under another path: its output is that link's,
   * the one file its redaction is written to (its line shows why, not an output).
   */
  skipped(entry: PlanEntry, reason: string, tooRecent = false, sameAs?: SentLink): void {
    this.#finish(
      entry,
      {
        status: 'skipped',
        reason,
        ...(tooRecent ? { tooRecent } : {}),
        ...(sameAs ? { sameAs: sameAs.input } : {}),
      },
      sameAs ? sameAs.output : entry.outputDisplay,
    );
  }

  /** `submitted`: taken by the service, to be collected by a later run, though no job id is known. */
  pending(entry: PlanEntry, reason: string, jobId?: string, submitted = false): void {
    this.#finish(entry, {
      status: 'pending',
      reason,
      ...(jobId ? { jobId } : {}),
      ...(submitted ? { submitted } : {}),
    });
  }

  /** A dry run's verdict. */
  planned(
    entry: PlanEntry,
    status: 'would-send' | 'would-collect',
    extra: { reason?: string; jobId?: string },
  ): void {
    this.deps.emit({ input: entry.display, output: entry.outputDisplay, status, ...extra });
  }
}
