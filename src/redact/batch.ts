/**
 * `vredact redact` from start to end: inputs → plan → (lock, journal) → pipeline → report → exit code.
 * Everything comes in through the context and the interrupt signals, so it runs in-process in tests.
 */
import { stat } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import type { Context } from '../context.js';
import { ExitCode } from '../errors.js';
import { printJsonLine } from '../output/table.js';
import { voiceFormFields } from '../settings/voice.js';
import { expandInputs } from './inputs.js';
import {
  type Decision,
  decide,
  type JournalRecord,
  type JournalState,
  JournalWriter,
  journalPath,
  optionsFingerprint,
  readJournal,
} from './journal.js';
import { acquireLock } from './lock.js';
import type { RedactOptions } from './options.js';
import {
  type Interrupt,
  type PipelineItem,
  type PipelineProgress,
  type RedactClient,
  runPipeline,
} from './pipeline.js';
import { buildPlan, type PlanEntry } from './plan.js';
import { probeFile } from './probe.js';
import { type Counts, type DryRunCounts, type Outcome, Reporter } from './report.js';
import { sweepPartials } from './sweep.js';

export const DEFAULT_OUT_DIR = 'redacted';

const EMPTY_COUNTS: Counts = { done: 0, skipped: 0, rejected: 0, failed: 0, pending: 0 };
const EMPTY_DRY_RUN: DryRunCounts = { 'would-send': 0, 'would-collect': 0, skipped: 0, rejected: 0 };

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
}

interface Planned {
  entry: PlanEntry;
  decision?: Decision;
  record?: JournalRecord | undefined;
  size: number;
  mtimeMs: number;
}

async function fileStat(path: string): Promise<{ size: number; mtimeMs: number } | undefined> {
  try {
    const info = await stat(path);
    return { size: info.size, mtimeMs: info.mtimeMs };
  } catch {
    return undefined;
  }
}

async function exists(path: string): Promise<boolean> {
  return (await fileStat(path)) !== undefined;
}

/** Applies the journal to every planned input: skip, collect or send. */
async function decideAll(
  entries: readonly PlanEntry[],
  journal: JournalState,
  fingerprint: string,
  overwrite: boolean,
): Promise<Planned[]> {
  const planned: Planned[] = [];
  for (const entry of entries) {
    if (entry.rejected) {
      planned.push({ entry, size: 0, mtimeMs: 0 });
      continue;
    }
    const info = await fileStat(entry.input);
    const record = journal.latest.get(entry.realPath);
    const decision = decide({
      record,
      interrupted: journal.interrupted.get(entry.realPath),
      size: info?.size ?? -1,
      mtimeMs: info?.mtimeMs ?? -1,
      options: fingerprint,
      outputExists: await exists(entry.output),
      overwrite,
    });
    planned.push({ entry, decision, record, size: info?.size ?? 0, mtimeMs: info?.mtimeMs ?? 0 });
  }
  return planned;
}

function skipReason(decision: Extract<Decision, { action: 'skip' }>): string {
  return decision.why === 'done'
    ? 'already done'
    : 'the output already exists and is not in the journal (--overwrite redoes it)';
}

/** Why --dry-run cannot say more about an input whose upload was cut short. */
const INTERRUPTED_NOTE =
  'an earlier upload was interrupted; it will be looked up first among the service jobs';

/** Runs one batch and returns its exit code. Usage problems throw UsageError (exit 2) before anything is sent. */
export async function runBatch(
  ctx: Context,
  request: BatchRequest,
  interrupt: Interrupt,
  deps: BatchDeps = {},
): Promise<number> {
  const { options } = request;
  const outDir = resolve(ctx.cwd, ctx.settings.outDir ?? DEFAULT_OUT_DIR);
  // A missing URL or token is a usage error (exit 2) before anything else; a dry run needs neither.
  const client = options.dryRun ? undefined : (deps.client ?? (await ctx.client()));
  const fields = voiceFormFields(ctx.settings.voice);
  const fingerprint = optionsFingerprint(fields);

  const expanded = await expandInputs({ cwd: ctx.cwd, args: request.args, listed: request.listed, outDir });
  for (const folder of expanded.emptyFolders) ctx.log.warn(`no .wav or .mp3 files under ${folder}`);
  if (expanded.duplicates > 0) ctx.log.info(`${expanded.duplicates} duplicate input(s) will be sent once`);
  const plan = await buildPlan(expanded, { cwd: ctx.cwd, outDir, shard: options.shard });
  if (options.shard) {
    ctx.log.info(
      `shard ${options.shard.index}/${options.shard.count}: ${plan.entries.length} input(s) here, ${plan.otherShards} in other shards`,
    );
  }

  if (plan.entries.length === 0) {
    ctx.log.info('nothing to do: no input files');
    if (ctx.settings.json) {
      printJsonLine(
        ctx.io,
        options.dryRun ? { summary: EMPTY_DRY_RUN, dryRun: true } : { summary: EMPTY_COUNTS },
      );
    }
    return ExitCode.ok;
  }
  if (options.dryRun) return dryRun(ctx, plan.entries, outDir, fingerprint, options);

  const lock = await acquireLock(outDir, ctx.log, ctx.clock.now);
  let writer: JournalWriter | undefined;
  let reporter: Reporter | undefined;
  try {
    const journal = await readJournal(journalPath(outDir));
    if (journal.unreadable > 0)
      ctx.log.warn(`ignored ${journal.unreadable} unreadable line(s) of the journal`);
    writer = await JournalWriter.open(journalPath(outDir));
    const planned = await decideAll(plan.entries, journal, fingerprint, options.overwrite);

    const dirs = new Set<string>([outDir]);
    for (const { entry } of planned) if (entry.output) dirs.add(dirname(entry.output));
    const swept = await sweepPartials(dirs, outDir);
    if (swept > 0) ctx.log.info(`removed ${swept} partial file(s) left by an earlier run`);

    const counts: Counts = { done: 0, skipped: 0, rejected: 0, failed: 0, pending: 0 };
    let expectedPending = 0;
    const startedAt = ctx.clock.now();
    const live = await Reporter.start(ctx.io, {
      verb: 'redacting',
      now: ctx.clock.now,
      total: planned.length,
    });
    reporter = live;
    // The pipeline knows what is in flight; the batch counts the outcomes of the whole run.
    let inPipeline: PipelineProgress | undefined;
    const showProgress = () =>
      live.progress({
        queued: 0,
        inFlight: 0,
        waiting: 0,
        bytesSent: 0,
        bytesTotal: 0,
        ...inPipeline,
        ...counts,
        total: planned.length,
        startedAt,
      });
    const report = (outcome: Outcome) => {
      counts[outcome.status as keyof Counts]++;
      if (outcome.status === 'pending' && !options.wait && outcome.jobId) expectedPending++;
      live.outcome(outcome);
      showProgress();
    };

    const items: PipelineItem[] = [];
    for (const { entry, decision, record, size, mtimeMs } of planned) {
      if (entry.rejected || !decision) {
        report({
          input: entry.display,
          output: entry.outputDisplay,
          status: 'rejected',
          reason: entry.rejected,
        });
      } else if (decision.action === 'skip') {
        report({
          input: entry.display,
          output: entry.outputDisplay,
          status: 'skipped',
          reason: skipReason(decision),
        });
      } else if (decision.action === 'collect') {
        items.push({
          entry,
          action: 'collect',
          record,
          jobId: decision.jobId,
          uploadName: decision.uploadName,
          size,
          mtimeMs,
        });
      } else if (decision.action === 'reconcile') {
        const { otherwise } = decision;
        items.push({
          entry,
          action: 'reconcile',
          record,
          uploadName: decision.uploadName,
          interrupted: {
            sinceMs: decision.sinceMs,
            durationSec: decision.durationSec,
            otherwise:
              otherwise.action === 'skip'
                ? { action: 'skip', reason: skipReason(otherwise) }
                : { action: 'send' },
          },
          size,
          mtimeMs,
        });
      } else {
        items.push({ entry, action: 'send', record, size, mtimeMs });
      }
    }

    let result: Awaited<ReturnType<typeof runPipeline>> = {};
    if (items.length > 0 && client) {
      result = await runPipeline(items, {
        client,
        journal: writer,
        clock: ctx.clock,
        log: ctx.log,
        fields,
        fingerprint,
        knownJobIds: journal.jobIds,
        concurrency: ctx.settings.concurrency,
        options,
        interrupt,
        emit: report,
        onProgress: (progress) => {
          inPipeline = progress;
          showProgress();
        },
      });
    }
    live.finish(counts, false);

    if (interrupt.stop.aborted || interrupt.abort.aborted) return ExitCode.interrupted;
    if (result.tokenRefused) {
      const refusal = result.tokenRefused as { message?: string; hint?: string };
      ctx.log.error(refusal.message ?? 'the service refused the token');
      if (refusal.hint) ctx.streams.stderr.write(`hint: ${refusal.hint}\n`);
      return ExitCode.auth;
    }
    const problems = counts.rejected + counts.failed + (counts.pending - expectedPending);
    return problems > 0 ? ExitCode.partial : ExitCode.ok;
  } finally {
    reporter?.close();
    await writer?.close().catch(() => {});
    await lock.release().catch(() => {});
  }
}

/** --dry-run: the plan, the journal's view of it and the local checks; no lock, no writes, no network. */
async function dryRun(
  ctx: Context,
  entries: readonly PlanEntry[],
  outDir: string,
  fingerprint: string,
  options: RedactOptions,
): Promise<number> {
  const journal = await readJournal(journalPath(outDir));
  const planned = await decideAll(entries, journal, fingerprint, options.overwrite);
  const counts: DryRunCounts = { 'would-send': 0, 'would-collect': 0, skipped: 0, rejected: 0 };
  const reporter = await Reporter.start(ctx.io, {
    verb: 'checking',
    now: ctx.clock.now,
    total: planned.length,
  });
  const report = (outcome: Outcome) => {
    counts[outcome.status as keyof DryRunCounts]++;
    reporter.outcome(outcome);
  };
  const { default: pLimit } = await import('p-limit');
  const probes = pLimit(8);
  // The spinner's timer would keep the process alive after an error.
  const checked = Promise.all(
    planned.map(({ entry, decision }) =>
      probes(async () => {
        const base = { input: entry.display, output: entry.outputDisplay };
        if (entry.rejected || !decision)
          return report({ ...base, status: 'rejected', reason: entry.rejected });
        if (decision.action === 'skip')
          return report({ ...base, status: 'skipped', reason: skipReason(decision) });
        if (decision.action === 'collect')
          return report({ ...base, status: 'would-collect', jobId: decision.jobId });
        // An interrupted upload: only the service can tell whether it became a job.
        const note = decision.action === 'reconcile' ? INTERRUPTED_NOTE : undefined;
        if (decision.action === 'reconcile' && decision.otherwise.action === 'skip') {
          return report({ ...base, status: 'skipped', reason: `${skipReason(decision.otherwise)}; ${note}` });
        }
        const probe = await probeFile(entry.input, options);
        if (!probe.ok) return report({ ...base, status: 'rejected', reason: probe.reason });
        report({ ...base, status: 'would-send', ...(note ? { reason: note } : {}) });
      }),
    ),
  );
  await checked.catch((error: unknown) => {
    reporter.close();
    throw error;
  });
  reporter.finish(counts, true);
  return counts.rejected > 0 ? ExitCode.partial : ExitCode.ok;
}
