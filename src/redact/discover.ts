/**
 * The first two stages: find the inputs, then plan their outputs (conflicts, names, shard). Between
 * them the caller asks the output folder's letter case (see fs/letter-case.ts), which the plan needs.
 */
import type { Context } from '../context.js';
import { displayText } from '../output/sanitize.js';
import type { BatchRequest } from './batch.js';
import { unlessStopped } from './event-turn.js';
import type { ExpandedInputs } from './found-inputs.js';
import { expandInputs } from './inputs.js';
import { displayPath, buildPlan, type Plan } from './plan.js';
import { settleHeap } from './settle-heap.js';

/** The inputs found; undefined when `stop` ended the listing (nothing is decided on a part of it). */
export async function findInputs(
  ctx: Context,
  request: BatchRequest,
  outDir: string,
  stop: AbortSignal,
): Promise<ExpandedInputs | undefined> {
  const expanded = await unlessStopped(
    expandInputs({
      cwd: ctx.cwd,
      args: request.args,
      listed: request.listed,
      listedVerbatim: request.options.nullSeparated,
      outDir,
      stop,
    }),
    stop,
  );
  if (!expanded) return undefined;
  for (const folder of expanded.emptyFolders) ctx.log.warn(`no .wav or .mp3 files under ${folder}`);
  if (expanded.duplicates > 0) ctx.log.info(`${expanded.duplicates} duplicate input(s) will be sent once`);
  // The listings are garbage now, and the plan's index of outputs will be once it is built: over
  // 1,000,000 inputs, 25 and 16 MB outside the heap, which V8 frees only when it collects. A dry
  // run's peak (at the plan's end) was 166 MB without these two collections.
  settleHeap(expanded.files.length);
  return expanded;
}

/** Whether any input was named or found: with none, there is nothing to plan (nor a folder to ask). */
export function anyInputs(expanded: ExpandedInputs): boolean {
  return expanded.files.length > 0 || expanded.problems.length > 0;
}

/**
 * `ignoresCase`: the output folder's letter case; undefined when it could not be told. Undefined when
 * `stop` ended the plan (over 1,000,000 inputs it takes seconds).
 */
export async function planOutputs(
  ctx: Context,
  request: BatchRequest,
  expanded: ExpandedInputs,
  outDir: string,
  ignoresCase: boolean | undefined,
  stop: AbortSignal,
): Promise<Plan | undefined> {
  const { shard } = request.options;
  const plan = await unlessStopped(
    buildPlan(expanded, { cwd: ctx.cwd, outDir, shard, ignoresCase, stop }),
    stop,
  );
  if (!plan) return undefined;
  settleHeap(plan.entries.length);
  if (plan.caseUnknown) {
    const { inputs, example } = plan.caseUnknown;
    ctx.log.warn(
      `cannot tell before the run whether the output folder ${displayText(displayPath(outDir, ctx.cwd))} ignores letter case (it has no name to ask yet): where it does (a vfat or exFAT drive, an SMB share), the run rejects ${inputs} input(s) whose outputs differ only in case, such as ${example.map((shown) => displayText(shown)).join(' and ')}`,
    );
  }
  if (shard) {
    ctx.log.info(
      `shard ${shard.index}/${shard.count}: ${plan.entries.length} input(s) here, ${plan.otherShards} in other shards`,
    );
  }
  return plan;
}
