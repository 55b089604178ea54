import type { Context } from '../../context.js';
import { escapeControls } from '../../output/sanitize.js';
import { escapeJsonControls } from '../../output/table.js';
import { MANIFEST_HEADER, manifestLine, manifestRow } from '../../status/manifest.js';
import type { LatestRecords } from '../../status/read-journals.js';
import { doneInputs } from '../../status/summary.js';
import type { LineWriter } from './write-lines.js';

/** CSV (RFC 4180) of the done files; with `--json`, one JSON object per line with the same keys. */
export async function printManifest(
  ctx: Context,
  out: LineWriter,
  outDir: string,
  latest: LatestRecords,
): Promise<void> {
  // The CSV is exact data for a file or a program; only a terminal gets control characters escaped.
  const show = ctx.io.stdoutIsTTY ? escapeControls : undefined;
  if (!ctx.settings.json && !(await out.write(MANIFEST_HEADER))) return;
  for (const input of doneInputs(latest)) {
    const record = latest.get(input);
    if (record === undefined) continue;
    const row = manifestRow(outDir, record);
    const line = ctx.settings.json ? `${escapeJsonControls(JSON.stringify(row))}\n` : manifestLine(row, show);
    if (!(await out.write(line))) return;
  }
  await out.flush();
}
