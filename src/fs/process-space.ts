/**
 * Whether a lock's pid means anything here: only in the same process space, the same host name, the
 * same boot of the kernel and the same pid namespace. A host name alone is not enough: containers
 * share one (a Kubernetes Indexed Job's replacement pod keeps `<job>-<index>`, Docker's `--hostname`
 * and `--network host`), and a container's run is pid 1 or 7 every time. Judged by its pid, a lock of
 * a container still running (its node cut off, its pod stuck terminating) looked dead here, or our
 * own, and was taken over at once: two runs on one journal, files sent twice. Any other lock is judged
 * by its lease (lock-lease.ts), as another host's.
 *
 * A namespace's number may be given again once it is gone, but then so are all its processes: a lock
 * of it judged by pid is rightly found dead.
 */
import { createHash } from 'node:crypto';
import { readFileSync, readlinkSync } from 'node:fs';
import { hostname } from 'node:os';

/** Where a lock's run was: its host name and, where Linux's /proc tells, its boot and pid namespace. */
export interface ProcessSpace {
  hostname: string;
  /** `/proc/sys/kernel/random/boot_id`: new at every boot, shared by the containers of one kernel. */
  bootId?: string;
  /** `/proc/self/ns/pid`'s target, `pid:[4026531836]`: what a pid is a number in. */
  pidNamespace?: string;
}

function readOrUndefined(read: () => string): string | undefined {
  try {
    return read().trim() || undefined;
  } catch {
    return undefined;
  }
}

let known: Omit<ProcessSpace, 'hostname'> | undefined;

/** This process's space; the boot and namespace are read once (they never change for a process). */
export function thisProcessSpace(): ProcessSpace {
  known ??= {
    bootId: readOrUndefined(() => readFileSync('/proc/sys/kernel/random/boot_id', 'latin1')),
    pidNamespace: readOrUndefined(() => readlinkSync('/proc/self/ns/pid')),
  };
  return {
    hostname: hostname(),
    ...(known.bootId === undefined ? {} : { bootId: known.bootId }),
    ...(known.pidNamespace === undefined ? {} : { pidNamespace: known.pidNamespace }),
  };
}

/**
 * Whether a lock's pid can be judged here. A lock of an older version says neither boot nor
 * namespace: judged by its pid only where we cannot read ours either (as before, where /proc does not
 * tell), by its lease otherwise, since it may well be another container's.
 */
export function sameProcessSpace(theirs: ProcessSpace, ours: ProcessSpace = thisProcessSpace()): boolean {
  return (
    theirs.hostname === ours.hostname &&
    theirs.bootId === ours.bootId &&
    theirs.pidNamespace === ours.pidNamespace
  );
}

/** The hex digits of a space tag (spaceTagOf). */
export const SPACE_TAG_DIGITS = 8;

/**
 * A process space in 8 hex digits, for names too short to carry it whole (a temporary file's, whose
 * name must fit wherever its output's fits): sameProcessSpace, hashed. Two spaces share a tag once in
 * four billion, and are then judged by pid, as every temporary file was before.
 */
export function spaceTagOf(space: ProcessSpace): string {
  return createHash('sha256')
    .update(`${space.hostname}\n${space.bootId ?? ''}\n${space.pidNamespace ?? ''}`)
    .digest('hex')
    .slice(0, SPACE_TAG_DIGITS);
}

let ourTag: string | undefined;

/** This process's space tag, taken once: its temporary names and its sweeps must agree for its whole run. */
export function thisSpaceTag(): string {
  ourTag ??= spaceTagOf(thisProcessSpace());
  return ourTag;
}

/**
 * Where a lock's run is, as shown after "pid 7 on idx-0": '' on another host, whose name says it, or
 * in this process space; otherwise why its pid is not judged here.
 */
export function elsewhereOnThisHostName(
  theirs: ProcessSpace,
  ours: ProcessSpace = thisProcessSpace(),
): string {
  if (theirs.hostname !== ours.hostname || sameProcessSpace(theirs, ours)) return '';
  return theirs.bootId === undefined && theirs.pidNamespace === undefined
    ? ' of an older vredact, which does not say its container'
    : ' in another container (or another boot)';
}
