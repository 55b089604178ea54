#!/usr/bin/env node
/**
 * The other floor under vredact's CPU figure: the disk work that vredact's promises need for each
 * file (disk-work.js), with no HTTP and none of vredact's logic; the answer written is the input's
 * own bytes. The bench runs it as a child beside vredact, so its CPU (user + sys) is measured the
 * same way.
 *
 *   node scripts/bench/disk-floor.js <output folder> <concurrency> <file>...   (paths relative to cwd)
 */
import { DiskWork, eachFile } from './disk-work.js';

const [outDir, concurrencyText, ...files] = process.argv.slice(2);
const disk = await DiskWork.open(outDir);
await eachFile(files, Number(concurrencyText), async (file, index) => {
  const { bytes, inputSha256 } = await disk.before(file, index);
  await disk.after(file, index, inputSha256, [bytes]);
});
await disk.close();
