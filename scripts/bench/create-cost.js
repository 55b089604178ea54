/**
 * What creating a file costs in one folder: the CPU (user + system) of creating and closing `count`
 * empty files there, per file. On ext4 it depends on the folder: a new file takes its inode from the
 * folder's block group, and where that group is full the kernel searches others, every time. On the
 * project's machine the same disk gave 12 to 700 µs per file from one folder to the next. vredact
 * creates one file per output (its temporary name), so its CPU per file moves by as much: the bench
 * prints this beside each CPU figure so that two figures are compared on the same footing.
 */
import { closeSync, openSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';

/** Microseconds of CPU per file created in `dir` (its probe files are removed again). */
export function createCostUs(dir, count = 100) {
  const names = Array.from({ length: count }, (_, i) => join(dir, `.create-probe-${process.pid}-${i}`));
  const before = process.cpuUsage();
  for (const name of names) closeSync(openSync(name, 'wx'));
  const used = process.cpuUsage(before);
  for (const name of names) unlinkSync(name);
  return (used.user + used.system) / count;
}
