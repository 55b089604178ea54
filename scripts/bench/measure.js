/**
 * Runs a child process and measures it: wall time always; with GNU time (`/usr/bin/time`), user and
 * system CPU (children included) and peak RSS as well.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';

export const GNU_TIME = '/usr/bin/time';
/** Children still running, so that an interrupted bench can stop them. */
export const running = new Set();
export const hasGnuTime = existsSync(GNU_TIME);

/**
 * Runs `command args` in `cwd` with `env`; stdin from `input` (a string) or nothing, stdout and
 * stderr discarded except the last 4 KiB of stderr (for the message when it fails). Resolves to
 * `{ code, wallS, userS?, sysS?, maxRssMb?, stderr }`.
 */
export async function measure(command, args, { cwd, env, input, scratch }) {
  const timeFile = join(scratch, `time-${process.pid}-${Date.now()}.txt`);
  const [file, argv] = hasGnuTime
    ? [GNU_TIME, ['-f', '%e %U %S %M', '-o', timeFile, command, ...args]]
    : [command, args];
  const started = performance.now();
  const child = spawn(file, argv, {
    cwd,
    env,
    stdio: [input === undefined ? 'ignore' : 'pipe', 'ignore', 'pipe'],
  });
  running.add(child);
  let stderr = '';
  child.stderr.on('data', (chunk) => {
    stderr = (stderr + chunk.toString('utf8')).slice(-4096);
  });
  if (input !== undefined) child.stdin.end(input);
  const code = await new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (exitCode) => resolve(exitCode));
  }).finally(() => running.delete(child));
  const result = { code, wallS: (performance.now() - started) / 1000, stderr };
  if (hasGnuTime) {
    const text = await readFile(timeFile, 'utf8').catch(() => '');
    await rm(timeFile, { force: true });
    // The last line holds the figures (a failed command adds a line before them).
    const figures = text.trim().split('\n').pop()?.split(' ').map(Number) ?? [];
    if (figures.length === 4 && figures.every(Number.isFinite)) {
      result.userS = figures[1];
      result.sysS = figures[2];
      result.maxRssMb = figures[3] / 1024;
    }
  }
  return result;
}

export function median(values) {
  const sorted = values.filter((v) => v !== undefined && Number.isFinite(v)).sort((a, b) => a - b);
  if (sorted.length === 0) return undefined;
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}
