/** The first two stages: discover the inputs, then plan their outputs (conflicts, names, shard). */
import type { Context } from '../context.js';
import { ignoresLetterCase, PLATFORM_IGNORES_CASE } from '../fs/letter-case.js';
import type { BatchRequest } from './batch.js';
import { expandInputs } from './inputs.js';
import { buildPlan, type Plan } from './plan.js';
import { settleHeap } from './settle-heap.js';

export async function discover(ctx: Context, request: BatchRequest, outDir: string): Promise<Plan> {
  const { shard } = request.options;
  const expanded = await expandInputs({
    cwd: ctx.cwd,
    args: request.args,
    listed: request.listed,
    listedVerbatim: request.options.nullSeparated,
    outDir,
  });
  for (const folder of expanded.emptyFolders) ctx.log.warn(`no .wav or .mp3 files under ${folder}`);
  if (expanded.duplicates > 0) ctx.log.info(`${expanded.duplicates} duplicate input(s) will be sent once`);
  // The listings are garbage now, and the plan's index of outputs will be once it is built: over
  // 1,000,000 inputs, 25 and 16 MB outside the heap, which V8 frees only when it collects. A dry
  // run's peak (at the plan's end) was 166 MB without these two collections.
  settleHeap(expanded.files.length);
  const ignoresCase = (await ignoresLetterCase(outDir)) ?? PLATFORM_IGNORES_CASE;
  const plan = await buildPlan(expanded, { cwd: ctx.cwd, outDir, shard, ignoresCase });
  settleHeap(plan.entries.length);
  if (shard) {
    ctx.log.info(
      `shard ${shard.index}/${shard.count}: ${plan.entries.length} input(s) here, ${plan.otherShards} in other shards`,
    );
  }
  return plan;
}
