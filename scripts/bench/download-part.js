/** Part 4 of bench:batch: `vredact download` of a job listing many tiny files. */
import { readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { cpuOf, mb, s } from './figures.js';
import { measure } from './measure.js';

/**
 * Runs `download` (the `bin` given, its default -c) of a job of each size in `sizes`, served by the
 * stand-in (`standIn.contentItems` set for each), into a folder under `scratch`. Each run must exit 0
 * with every file saved; its wall time, CPU and peak RSS are printed. Returns how many runs went wrong.
 */
export async function downloadPart({ bin, scratch, env, standIn, sizes }) {
  let failures = 0;
  console.log('\n4. vredact download of a job of tiny WAVs (0.05 s, 1,644 bytes), default -c');
  for (const files of sizes) {
    standIn.contentItems = files;
    const outDir = join(scratch, `download-${files}`);
    const result = await measure(process.execPath, [bin, 'download', 'job-bench', '-o', outDir], {
      cwd: scratch,
      env,
      scratch,
    });
    const saved = (await readdir(outDir).catch(() => [])).filter((name) => name.endsWith('.wav')).length;
    if (result.code !== 0 || saved !== files) {
      failures++;
      console.log(
        `  ! download of ${files} files: exit ${result.code}, ${saved} saved: ${result.stderr.trim()}`,
      );
    }
    console.log(
      `  ${files} files: ${s(result.wallS)}, CPU ${s(cpuOf(result))}, peak RSS ${mb(result.maxRssMb)}`,
    );
    await rm(outDir, { recursive: true, force: true });
  }
  standIn.contentItems = 0;
  return failures;
}
