import { stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { Context } from '../../context.js';
import { ExitCode, UsageError } from '../../errors.js';
import { scrubberFor } from '../../api/scrub.js';
import { displayText } from '../../output/sanitize.js';
import { linesBeingWritten, listJournals, readJournals } from '../../status/read-journals.js';
import { summarize } from '../../status/summary.js';
import { printJsonDocument, printTerminal, printTsv, type StatusView } from './render.js';
import { printManifest } from './print-manifest.js';
import { lineWriter } from './write-lines.js';
import { DEFAULT_OUT_DIR } from '../../settings/settings.js';
import { runsUnderWay } from '../../redact/lock.js';

/** The same default as `vredact redact`'s output folder. */
const WHICH_FOLDER = 'name the output folder of `vredact redact` with -o (default ./redacted)';

/**
 * `vredact status [-o dir] [--all] [--json] [--manifest]`: what the output folder's journals say.
 * Exit 0 whatever the files' states (status reports, it does not judge); 2 when there is no journal.
 */
export async function runStatus(
  ctx: Context,
  _args: string[],
  flags: Record<string, unknown>,
): Promise<number> {
  const outDir = resolve(ctx.cwd, ctx.settings.outDir ?? DEFAULT_OUT_DIR);
  const names = await listJournals(outDir);
  if (!names || names.length === 0) {
    // A folder the user did not type (the config file's out-dir) is one they may not know of.
    const which =
      ctx.settings.sources['out-dir'] === 'config'
        ? 'the config file names it (out-dir: `vredact config get out-dir`); name another folder with -o'
        : WHICH_FOLDER;
    const folder = await isFolder(outDir);
    if (folder !== true) {
      const what =
        folder === undefined ? `no folder ${displayText(outDir)}` : `${displayText(outDir)} is not a folder`;
      throw new UsageError(what, which);
    }
    throw new UsageError(
      `no journal in ${displayText(outDir)}: nothing has been redacted into this folder yet`,
      which,
    );
  }
  const manifest = flags.manifest === true;
  // Looked for before the journals are read: a run that ends meanwhile has recorded its uploads by then.
  const runs = await runsUnderWay(outDir);
  const read = await readJournals(outDir, names, {
    details: manifest,
    // The manifest lists what is done, whatever a run is sending now.
    runsUnderWay: manifest ? undefined : new Map(runs.map((run) => [run.lock, run.startedMs])),
    // The tokens the logger scrubs: the one in effect and the stored one.
    scrub: scrubberFor([ctx.settings.token, ctx.config.get('token')]),
  });
  // A line a run is writing as it is read is not damage: it is left for the next look.
  const unreadable = read.unreadable - (await linesBeingWritten(outDir, read.tornTails, runs));
  if (unreadable > 0) {
    ctx.log.warn(`skipped ${unreadable} journal line(s) that could not be read (damaged, or over 1 MiB)`);
  }
  for (const run of runs) {
    const shown = manifest ? '' : ': its uploads in flight show as uploading';
    ctx.log.info(`a run is under way in this folder (${run.shown})${shown}`);
  }
  const out = lineWriter(ctx.streams.stdout);
  if (manifest) {
    await printManifest(ctx, out, outDir, read.latest);
    return ExitCode.ok;
  }
  const { counts, listed } = summarize(read.latest, flags.all === true);
  const view: StatusView = { outDir, journals: read.files, counts, unreadable, listed };
  if (ctx.settings.json) await printJsonDocument(out, view);
  else if (ctx.io.stdoutIsTTY) await printTerminal(ctx, out, view);
  else await printTsv(ctx, out, view);
  if (!ctx.settings.json && view.counts.failed + view.counts.pending > 0) {
    ctx.log.info(
      'run the same `vredact redact` command again: it sends the failed files again and collects the pending jobs',
    );
  }
  return ExitCode.ok;
}

/** Undefined when nothing is there (or it cannot be seen). */
async function isFolder(path: string): Promise<boolean | undefined> {
  return stat(path).then(
    (stats) => stats.isDirectory(),
    () => undefined,
  );
}
