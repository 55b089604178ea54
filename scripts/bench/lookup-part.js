/**
 * Part 4 of bench:batch: a run with one interrupted upload in its journal, whose look-up lists the
 * stand-in's jobs (job-listing.js) and reads the recent ones, at most 500. Its memory is what the
 * look-up keeps of the listing.
 */
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { cpuOf, mb, s } from './figures.js';
import { measure } from './measure.js';
import { writeWavFiles } from './wav-files.js';

/** Jobs the look-up reads at most (RECONCILE_MAX_READS). */
const MAX_READS = 500;
/** Recent jobs in the first case of each size; the second has every job recent. */
const RECENT = 1000;

/**
 * For each size in `sizes`: one input's upload answered 502 (left `uploading`), then a run measured
 * while the stand-in lists that many jobs, 1,000 of them recent and then all. Returns how many runs
 * went wrong.
 */
export async function lookupPart({ bin, scratch, env, standIn, sizes }) {
  let failures = 0;
  const wrong = (message) => {
    failures++;
    console.log(`  ! ${message}`);
  };
  console.log('\n5. a run with one interrupted upload in its journal: its look-up lists the service jobs');
  const inDir = join(scratch, 'lookup-in');
  const outDir = join(scratch, 'lookup-out');
  const redact = (extra) =>
    measure(process.execPath, [bin, 'redact', inDir, '-o', outDir, '--quiet', ...extra], {
      cwd: scratch,
      env,
      scratch,
    });
  await writeWavFiles(inDir, 1, 0.05);
  for (const jobs of sizes) {
    for (const recent of [...new Set([Math.min(RECENT, jobs), jobs])]) {
      await rm(outDir, { recursive: true, force: true });
      standIn.failUploads = true;
      const cut = await redact(['--max-retries', '0']);
      standIn.failUploads = false;
      if (cut.code !== 1) wrong(`the upload to be cut short: exit ${cut.code}: ${cut.stderr.trim()}`);
      standIn.listing = { jobs, recent };
      const { uploads, contentReads } = standIn.stats;
      const run = await redact([]);
      standIn.listing = { jobs: 0, recent: 0 };
      const reads = standIn.stats.contentReads - contentReads;
      const sent = standIn.stats.uploads - uploads;
      if (run.code !== 0 || sent !== 1 || reads !== Math.min(recent, MAX_READS)) {
        wrong(`${jobs} jobs: exit ${run.code}, ${sent} uploads, ${reads} jobs read\n${run.stderr.trim()}`);
      }
      console.log(
        `  ${jobs} jobs listed, ${recent} of them recent: ${s(run.wallS)}, CPU ${s(cpuOf(run))}, peak RSS ${mb(run.maxRssMb)} (${reads} read)`,
      );
    }
  }
  await rm(inDir, { recursive: true, force: true });
  await rm(outDir, { recursive: true, force: true });
  return failures;
}
