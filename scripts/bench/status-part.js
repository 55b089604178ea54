/** Part 3 of bench:batch: `vredact status` and `--manifest` over journals of many inputs. */
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { mb, s } from './figures.js';
import { writeJournal } from './journal-file.js';
import { measure } from './measure.js';

/**
 * Runs `status` and `status --manifest` (the `bin` given) over a journal of each size in `inputs`,
 * written under `scratch`; their memory is one record per input. Returns how many runs went wrong.
 */
export async function statusPart({ bin, scratch, env, inputs: sizes }) {
  let failures = 0;
  console.log('\n3. vredact status over a journal of two lines per input (99 % done)');
  for (const inputs of sizes) {
    const outDir = join(scratch, `status-${inputs}`);
    await writeJournal(outDir, inputs);
    const run = (extra) =>
      measure(process.execPath, [bin, 'status', '-o', outDir, ...extra], { cwd: scratch, env, scratch });
    const summary = await run([]);
    const manifest = await run(['--manifest']);
    for (const [label, result] of [
      ['status', summary],
      ['--manifest', manifest],
    ]) {
      if (result.code !== 0) {
        failures++;
        console.log(
          `  ! status ${label} over ${inputs} inputs: exit ${result.code}: ${result.stderr.trim()}`,
        );
      }
    }
    console.log(
      `  ${inputs} inputs: status ${s(summary.wallS)}, peak RSS ${mb(summary.maxRssMb)}; ` +
        `--manifest ${s(manifest.wallS)}, peak RSS ${mb(manifest.maxRssMb)}`,
    );
    await rm(outDir, { recursive: true, force: true });
  }
  return failures;
}
