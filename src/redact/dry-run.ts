/** --dry-run: the plan, the journals' view of it and the local checks; no lock, no writes, no network. */
import { join } from 'node:path';
import type { Context } from '../context.js';
import { ExitCode } from '../errors.js';
import { checkOutputFolderShape } from '../fs/writable.js';
import { checkInput } from './check.js';
import { DecidingOrder } from './deciding-order.js';
import { unlessStopped } from './event-turn.js';
import { type DryRunResults, dryRunShortage, jobResultNeed, resultNeed } from './free-space.js';
import { STATE_DIR } from './journal.js';
import { readJournals } from './journal-read.js';
import { HardLinkRule } from './journaled-links.js';
import type { MinAgeRule } from './min-age.js';
import type { RedactOptions } from './options.js';
import type { DryRunCounts, Outcome } from './outcome.js';
import { OutputPresence } from './output-presence.js';
import { displayPath, type Plan } from './plan.js';
import { BoundedQueue, forEachConcurrently } from './queue.js';
import { probeFile } from './probe.js';
import { createHalt } from './halt.js';
import { Recorder } from './record.js';
import { interruptedBeforeDeciding } from './json-summary.js';
import type { PhaseStats } from './phase-stats.js';
import { Reporter } from './report.js';
import { settleHeap } from './settle-heap.js';
import { probeWorkers } from './stages.js';
import { triage } from './triage.js';
import type { Pause } from './test-pause.js';
import { settleUnvouched, UnvouchedOutputs } from './unvouched.js';
import type { Work } from './work.js';

export async function runDryRun(
  ctx: Context,
  plan: Plan,
  fingerprint: string,
  options: RedactOptions,
  {
    stop,
    pause,
    minAge,
    phase,
  }: { stop: AbortSignal; pause: Pause; minAge: MinAgeRule | undefined; phase?: PhaseStats },
): Promise<number> {
  const { entries } = plan;
  await checkOutputFolderShape(plan.outDir, join(plan.outDir, STATE_DIR));
  const journal = await unlessStopped(readJournals(plan.outDir, plan.inputs, stop), stop);
  // Interrupted while the journals were read: no input was decided, so none is reported.
  if (!journal) return interruptedBeforeDeciding(ctx.io, true, entries.length);
  if (stop.aborted) {
    await journal.open?.close();
    return interruptedBeforeDeciding(ctx.io, true, entries.length);
  }
  plan.inputs.release();
  settleHeap(entries.length);
  const counts: DryRunCounts = { 'would-send': 0, 'would-collect': 0, skipped: 0, rejected: 0 };
  // Its progress line takes over from the `--stats` lines of the phases before.
  phase?.stop();
  const reporter = await Reporter.start(ctx.io, {
    verb: 'checking',
    now: ctx.clock.now,
    total: entries.length,
  });
  const recorder = new Recorder({
    journal: undefined,
    fingerprint,
    fields: {},
    clock: ctx.clock,
    halt: createHalt(),
    total: entries.length,
    emit: (outcome: Outcome) => {
      counts[outcome.status as keyof DryRunCounts]++;
      reporter.outcome(outcome);
    },
  });
  const limits = { maxSize: options.maxSize, maxDurationSec: options.maxDurationSec };
  const decided = new BoundedQueue<Work>(256);
  const outputs = new OutputPresence();
  const hardLinks = new HardLinkRule(plan.hardLinks, journal.latest, fingerprint, (path) =>
    displayPath(path, ctx.cwd),
  );
  const unvouched = new UnvouchedOutputs();
  const results: DryRunResults = { sent: 0, collected: 0, need: 0 };
  // Stopped (Ctrl-C, a closed stdout): the inputs left are not decided; nothing is in flight.
  const triaging = forEachConcurrently(new DecidingOrder(entries, stop, pause), 16, async (entry) =>
    decided.push(
      await triage(entry, {
        journal,
        fingerprint,
        overwrite: options.overwrite,
        found: undefined,
        outputs,
        minAge,
        hardLinks,
      }),
    ),
  ).finally(() => decided.close());
  // The spinner's timer would keep the process alive after an error.
  const checking = Promise.all([
    triaging,
    forEachConcurrently(decided, probeWorkers(ctx.settings.concurrency), async (work) => {
      if (stop.aborted) return;
      if (work.kind === 'settled') return;
      if (work.kind === 'skipped' && work.unvouched) return unvouched.defer(work.entry);
      if (work.kind === 'skipped')
        return recorder.skipped(work.entry, work.reason, work.tooRecent, work.sameAs);
      if (work.kind === 'rejected') return recorder.rejected(work.entry, work.reason);
      if (work.kind === 'collect') {
        // An older journal does not give the input's duration: the run measures it again, and so does this.
        const probe = work.durationSec === undefined ? await probeFile(work.entry.input, limits) : undefined;
        const durationSec = probe ? (probe.ok ? probe.durationSec : undefined) : work.durationSec;
        if (durationSec !== undefined) {
          results.collected++;
          results.need += jobResultNeed(work, durationSec, options.durationTolerance);
        }
        return recorder.planned(work.entry, 'would-collect', { jobId: work.jobId });
      }
      const checked = await checkInput(work, limits, undefined, (message) => ctx.log.warn(message), minAge);
      if (checked.kind === 'left') return recorder.skipped(work.entry, checked.reason, true);
      if (checked.kind === 'same-bytes') return recorder.skipped(work.entry, checked.reason);
      if (checked.kind === 'rejected') return recorder.rejected(work.entry, checked.reason);
      results.sent++;
      results.need += resultNeed({ ...checked, size: checked.identity.size }, options.durationTolerance);
      recorder.planned(work.entry, 'would-send', work.note ? { reason: work.note } : {});
    }),
  ]);
  await checking
    .then(() => (stop.aborted ? undefined : settleUnvouched(unvouched, entries, journal, recorder)))
    .catch((error: unknown) => {
      reporter.close();
      throw error;
    })
    .finally(() => journal.open?.close());
  const code = stop.aborted ? ExitCode.interrupted : counts.rejected > 0 ? ExitCode.partial : ExitCode.ok;
  // The summary's tick or cross says what the exit code says, as a run's does: an interrupted check is a cross.
  reporter.finish(counts, true, code === ExitCode.ok, stop.aborted);
  const shortage = stop.aborted ? undefined : dryRunShortage(plan.outDir, results);
  if (shortage) ctx.log.warn(shortage);
  return code;
}
