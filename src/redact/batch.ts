/**
 * `vredact redact` from start to end, read top to bottom: find inputs → make the output folder (a
 * real run; it tells the folder's letter case) → plan outputs (conflicts, shard) → lock (waiting for it with --lock-wait), compact and read the journals → look up interrupted uploads → the stages (decide from
 * the journal → check locally → send → collect jobs → verify and write → record) → report → exit code.
 * Everything comes in through the context and the interrupt signals, so it runs in-process in tests.
 */
import { resolve } from 'node:path';
import type { Context } from '../context.js';
import { ExitCode } from '../errors.js';
import { DEFAULT_OUT_DIR } from '../settings/settings.js';
import { markTemporaryNamesAsShard } from '../fs/atomic-write.js';
import { resolveFolderInside } from '../fs/containment.js';
import { type CaseLookup, ignoresLetterCase } from '../fs/letter-case.js';
import { checkJournalWritable, checkOutputFolderWritable, checkStateFolderWritable } from '../fs/writable.js';
import { displayText } from '../output/sanitize.js';
import { voiceFormFields } from '../settings/voice.js';
import { readJournalsCompacting } from './compact.js';
import type { JournalState } from './journal-read.js';
import type { Interrupt, RedactClient } from './engine.js';
import { runDryRun } from './dry-run.js';
import { type PhaseStats, startPhaseStats } from './phase-stats.js';
import { interruptedBeforeDeciding, noCounts, printJsonSummary } from './json-summary.js';
import { journalPath, lockNameFor, optionsFingerprint, STATE_DIR } from './journal.js';
import { JournalWriter } from './journal-writer.js';
import { lockRefreshMs } from '../fs/lock-lease.js';
import { acquireLockWaiting } from './lock-wait.js';
import type { RedactOptions } from './options.js';
import type { Outcome } from './outcome.js';
import { endOfRun, type RunEnding, RunTally } from './run-end.js';
import { adoptOutput } from './adopt.js';
import { anyInputs, findInputs, planOutputs } from './discover.js';
import { lookUpInterrupted } from './interrupted-look-up.js';
import { HardLinkRule } from './journaled-links.js';
import { displayPath } from './plan.js';
import { buildEngine } from './setup.js';
import { createHalt } from './halt.js';
import { MinAgeRule } from './min-age.js';
import { Recorder } from './record.js';
import { Reporter } from './report.js';
import { OutputPresence } from './output-presence.js';
import { runStages } from './stages.js';
import { settleHeap } from './settle-heap.js';
import { sweepOutputs } from './setup.js';
import { unlessStopped } from './event-turn.js';
import { testPause } from './test-pause.js';

export type { Interrupt, RedactClient } from './engine.js';

export interface BatchRequest {
  /** Inputs named on the command line (files, folders, patterns). */
  args: readonly string[];
  /** Paths read from --files-from. */
  listed: readonly string[];
  options: RedactOptions;
}

export interface BatchDeps {
  /** The service client; ctx.client() when absent. */
  client?: RedactClient;
  /** Called just before each upload (tests replace an input there). */
  beforeUpload?: (path: string) => Promise<void>;
  /** How the output folder's names are looked up for its letter case (tests play one that ignores it). */
  caseLookup?: CaseLookup;
}

/** Runs one batch and returns its exit code. Usage problems throw UsageError (exit 2) before anything is sent. */
export async function runBatch(
  ctx: Context,
  request: BatchRequest,
  interrupt: Interrupt,
  deps: BatchDeps = {},
): Promise<number> {
  // The one instant --min-age counts from, for every file of the run (as rclone takes its start).
  const startedMs = ctx.clock.now();
  const phase = await startPhaseStats(ctx.io, ctx.clock.now, startedMs);
  try {
    return await runPhases(ctx, request, interrupt, deps, { startedMs, phase });
  } finally {
    phase.stop();
  }
}

async function runPhases(
  ctx: Context,
  request: BatchRequest,
  interrupt: Interrupt,
  deps: BatchDeps,
  { startedMs, phase }: { startedMs: number; phase: PhaseStats },
): Promise<number> {
  const { options } = request;
  const minAge =
    options.minAge.ms > 0
      ? new MinAgeRule(
          options.minAge,
          startedMs,
          () => ctx.clock.now(),
          (message) => ctx.log.warn(message),
        )
      : undefined;
  // Before this run writes anything (the write checks of the output and state folders, the lock):
  // a shard sweeps only names marked as its own, so an unmarked file it left by dying stayed for good.
  markTemporaryNamesAsShard(options.shard);
  const outDir = resolve(ctx.cwd, ctx.settings.outDir ?? DEFAULT_OUT_DIR);
  // A missing URL or token is a usage error (exit 2) before anything else; a dry run needs neither.
  const client = options.dryRun ? undefined : (deps.client ?? (await ctx.client()));
  const fields = voiceFormFields(ctx.settings.voice);
  const fingerprint = optionsFingerprint(fields);

  const dryRun = options.dryRun || !client;
  const pause = testPause(ctx.env, { stop: interrupt.stop, end: interrupt.abort }, (line) =>
    ctx.log.info(line),
  );
  const found = await findInputs(ctx, request, outDir, interrupt.stop);
  // Interrupted while listing: nothing was decided, made or sent, so no file is reported.
  if (!found) return interruptedBeforeDeciding(ctx.io, options.dryRun);
  // The plan needs the output folder's letter case. A real run makes the folder first (exit 2 where it
  // cannot take outputs, before the lock and before anything is sent): the write check's own file
  // there tells exactly, in a fresh, empty folder too. A dry run may not write: it asks by a name
  // already there. With no inputs at all, nothing is planned, and no folder is made.
  const ignoresCase = !anyInputs(found)
    ? undefined
    : dryRun
      ? await ignoresLetterCase(outDir, deps.caseLookup)
      : (await checkOutputFolderWritable(outDir, deps.caseLookup)).ignoresCase;
  await pause('plan');
  phase.now('planning the outputs');
  const plan = await planOutputs(ctx, request, found, outDir, ignoresCase, interrupt.stop);
  // Interrupted while planning (seconds over 1,000,000 inputs): nothing was decided, locked or sent.
  if (!plan || interrupt.stop.aborted)
    return interruptedBeforeDeciding(ctx.io, options.dryRun, plan?.entries.length);
  if (plan.entries.length === 0) {
    ctx.log.info('nothing to do: no input files');
    if (ctx.io.json)
      printJsonSummary(ctx.io, noCounts(options.dryRun), { dryRun: options.dryRun, interrupted: false });
    return ExitCode.ok;
  }
  if (dryRun || !client) {
    phase.now('reading the journals');
    await pause('journal');
    return runDryRun(ctx, plan, fingerprint, options, { stop: interrupt.stop, pause, minAge, phase });
  }
  client.rideOutOutages?.(options.maxOutageWaitMs);

  // Through no link that leads out of the output folder: nothing outside it is made private or written.
  await checkStateFolderWritable(await resolveFolderInside(outDir, STATE_DIR));
  const own = journalPath(outDir, options.shard);
  await checkJournalWritable(own);
  const lock = await acquireLockWaiting(
    outDir,
    ctx.log,
    { name: lockNameFor(options.shard), refreshMs: lockRefreshMs(ctx.env) },
    {
      waitMs: options.lockWaitMs,
      clock: ctx.clock,
      stop: interrupt.stop,
      onWaiting: (holder) =>
        phase.now(`waiting for the lock of the output folder ${displayText(outDir)}, held by ${holder}`),
    },
  );
  // Interrupted while waiting for another run's lock: nothing was decided or sent.
  if (!lock) return interruptedBeforeDeciding(ctx.io, false, plan.entries.length);
  // A lock found to be another run's stops the batch as a full disk does (exit 1, with its reason).
  const halt = createHalt();
  lock.lost.addEventListener('abort', () => halt.stop(lock.lost.reason), { once: true });
  let writer: JournalWriter | undefined;
  let reporter: Reporter | undefined;
  let journal: JournalState | undefined;
  try {
    phase.now('reading the journals');
    await pause('journal');
    journal = await unlessStopped(
      readJournalsCompacting(outDir, own, (line) => ctx.log.info(line), {
        known: plan.inputs,
        beforeRename: lock.confirm,
        stop: interrupt.stop,
        pause,
      }),
      interrupt.stop,
    );
    // Interrupted while the journals were read or compacted: nothing was decided or sent, and the
    // journal is as it was (an interrupted compaction's copy is removed). The lock is released.
    if (!journal || interrupt.stop.aborted)
      return interruptedBeforeDeciding(ctx.io, false, plan.entries.length);
    plan.inputs.release();
    if (journal.unreadable > 0)
      ctx.log.warn(`ignored ${journal.unreadable} unreadable line(s) of the journal`);
    if (journal.oversized > 0) ctx.log.warn(`ignored ${journal.oversized} oversized line(s) of the journal`);
    writer = await JournalWriter.open(own, ctx.clock, lock.confirm);
    phase.now('removing partial files left by an earlier run');
    await sweepOutputs(ctx, outDir, plan.outputFolders, options.shard, interrupt.stop);
    if (interrupt.stop.aborted) return interruptedBeforeDeciding(ctx.io, false, plan.entries.length);

    const tally = new RunTally(options.wait);
    phase.stop();
    const live = await Reporter.start(ctx.io, {
      verb: 'redacting',
      now: ctx.clock.now,
      total: plan.entries.length,
    });
    reporter = live;
    const recorder = new Recorder({
      journal: writer,
      fingerprint,
      fields,
      clock: ctx.clock,
      halt,
      total: plan.entries.length,
      emit: (outcome: Outcome) => live.outcome(outcome, tally.count(outcome)),
      onProgress: (progress) => live.progress(progress),
    });
    interrupt.countInFlight?.(() => recorder.inFlight());
    const engine = await buildEngine(ctx, {
      client,
      outDir,
      recorder,
      halt,
      fields,
      options,
      interrupt,
      deps,
      lock,
      minAge,
    });
    const found = await lookUpInterrupted(engine, plan.entries, journal, fingerprint, options.overwrite);
    settleHeap(plan.entries.length);
    await runStages(
      engine,
      plan.entries,
      {
        journal,
        fingerprint,
        overwrite: options.overwrite,
        found,
        outputs: new OutputPresence(),
        adopt: (entry, identity, uploadStartedMs) => adoptOutput(engine, entry, identity, uploadStartedMs),
        minAge,
        hardLinks: new HardLinkRule(plan.hardLinks, journal.latest, fingerprint, (path) =>
          displayPath(path, ctx.cwd),
        ),
      },
      ctx.settings.concurrency,
      { end: interrupt.abort, pause },
    );
    await writer.close();
    writer = undefined;
    recorder.changed(true);

    return endOfRun(ctx, live, tally, {
      halt,
      refusal: engine.tokenRefused() as RunEnding['refusal'],
      stop: interrupt.stop,
      abort: interrupt.abort,
    });
  } finally {
    reporter?.close();
    await journal?.open?.close().catch(() => {});
    await writer?.close().catch(() => {});
    await lock.release().catch(() => {});
  }
}
