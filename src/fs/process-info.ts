/**
 * Whether the process that wrote a lock or a temporary file still runs. A pid alone is not enough:
 * pids are reused (quickly in containers, where every cron run may be pid 7), so where Linux's /proc
 * tells when a process started, a process that started after the file was written is not its writer.
 */
import { readFileSync } from 'node:fs';

/**
 * Clock ticks per second of /proc/<pid>/stat's start time: USER_HZ, part of Linux's user-space ABI
 * and 100 on the architectures Node runs on (Node cannot call sysconf). `startTimeMs` checks it
 * against this process's own start, and gives up when it does not fit.
 */
const USER_HZ = 100;
/** The boot time is in whole seconds and clocks get adjusted: a start this close to a file's time proves nothing. */
const START_TOLERANCE_MS = 2_000;

/** Whether a process with this pid runs on this host (EPERM: it exists but is not ours). */
export function processAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

let bootTimeMs: number | null | undefined;

function readBootTimeMs(): number | null {
  try {
    const line = /^btime (\d+)$/m.exec(readFileSync('/proc/stat', 'latin1'));
    return line ? Number(line[1]) * 1000 : null;
  } catch {
    return null;
  }
}

function startTicks(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
    // The command name (field 2) may hold spaces and parentheses: count fields after its last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticks = Number(fields[22 - 3]);
    return Number.isFinite(ticks) ? ticks : undefined;
  } catch {
    return undefined;
  }
}

function startFromTicks(ticks: number, boot: number): number {
  return boot + (ticks * 1000) / USER_HZ;
}

/** Whether /proc's start times can be trusted here: this process's own start must come out right. */
let procTrusted: boolean | undefined;

function procUsable(): boolean {
  if (procTrusted !== undefined) return procTrusted;
  bootTimeMs ??= readBootTimeMs();
  const ticks = startTicks(process.pid);
  const actual = Date.now() - process.uptime() * 1000;
  procTrusted =
    bootTimeMs !== null &&
    ticks !== undefined &&
    Math.abs(startFromTicks(ticks, bootTimeMs) - actual) < 5 * START_TOLERANCE_MS;
  return procTrusted;
}

/** When the process with this pid started (epoch ms): this one everywhere, others where /proc tells. */
export function processStartTimeMs(pid: number): number | undefined {
  if (pid === process.pid) return Date.now() - process.uptime() * 1000;
  if (!Number.isInteger(pid) || pid <= 0 || !procUsable() || !bootTimeMs) return undefined;
  const ticks = startTicks(pid);
  return ticks === undefined ? undefined : startFromTicks(ticks, bootTimeMs);
}

/**
 * Whether the writer of something written at `writtenAtMs` by process `pid` may still be running:
 * the pid is alive and, where start times are known, that process started before the writing. An
 * unknown `writtenAtMs` (NaN) leaves only the pid to judge by.
 */
export function writerMayBeAlive(pid: number, writtenAtMs: number): boolean {
  if (!processAlive(pid)) return false;
  if (!Number.isFinite(writtenAtMs)) return true;
  const started = processStartTimeMs(pid);
  return started === undefined || started <= writtenAtMs + START_TOLERANCE_MS;
}
