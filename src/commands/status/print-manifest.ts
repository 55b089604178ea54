import type { Context } from '../../context.js';
import { escapeControls } from '../../output/sanitize.js';
import { escapeJsonControls } from '../../output/table.js';
import { MANIFEST_HEADER, manifestLine, manifestRow } from '../../status/manifest.js';
import type { LatestRecords } from '../../status/read-journals.js';
import { manifestInputs } from '../../status/summary.js';
import { standingRecord } from '../../status/earlier-output.js';
import type { LineWriter } from './write-lines.js';

/** CSV (RFC 4180) of the files an output stands for (see earlier-output.ts); with `--json`, one JSON object per line with the same keys. */
export async function printManifest(
  ctx: Context,
  out: LineWriter,
  outDir: string,
  latest: LatestRecords,
): Promise<void> {
  // The CSV is exact data for a file or a program; only a terminal gets control characters escaped.
  const show = ctx.io.stdoutIsTTY ? escapeControls : undefined;
  if (!ctx.settings.json && !(await out.write(MANIFEST_HEADER))) return;
  for (const input of manifestInputs(latest)) {
    const last = latest.get(input);
    const record = last && standingRecord(last);
    if (record === undefined) continue;
    const row = manifestRow(outDir, record);
    const line = ctx.settings.json ? `${escapeJsonControls(JSON.stringify(row))}\n` : manifestLine(row, show);
    if (!(await out.write(line))) return;
  }
  await out.flush();
}
