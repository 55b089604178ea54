/** The first two stages: discover the inputs, then plan their outputs (conflicts, names, shard). */
import type { Context } from '../context.js';
import type { BatchRequest } from './batch.js';
import { expandInputs } from './inputs.js';
import { buildPlan, type Plan } from './plan.js';

export async function discover(ctx: Context, request: BatchRequest, outDir: string): Promise<Plan> {
  const { shard } = request.options;
  const expanded = await expandInputs({ cwd: ctx.cwd, args: request.args, listed: request.listed, outDir });
  for (const folder of expanded.emptyFolders) ctx.log.warn(`no .wav or .mp3 files under ${folder}`);
  if (expanded.duplicates > 0) ctx.log.info(`${expanded.duplicates} duplicate input(s) will be sent once`);
  const plan = await buildPlan(expanded, { cwd: ctx.cwd, outDir, shard });
  if (shard) {
    ctx.log.info(
      `shard ${shard.index}/${shard.count}: ${plan.entries.length} input(s) here, ${plan.otherShards} in other shards`,
    );
  }
  return plan;
}
