/**
 * What a lock written by a run in this process space (this test's container and boot) says beyond
 * its pid and host name, read from Linux's /proc as a test sees it; elsewhere nothing, as a run there
 * writes nothing. A test writes these fields to make a lock its run's own, or changes one to make it
 * another container's; and names temporary files as a run here, or in another container, names them.
 */
import { readFileSync, readlinkSync } from 'node:fs';
import { hostname } from 'node:os';
import { spaceTagOf } from '../../src/fs/process-space.js';

function readOr(read: () => string): string | undefined {
  try {
    return read().trim() || undefined;
  } catch {
    return undefined;
  }
}

export const OUR_BOOT_ID = readOr(() => readFileSync('/proc/sys/kernel/random/boot_id', 'utf8'));
export const OUR_PID_NAMESPACE = readOr(() => readlinkSync('/proc/self/ns/pid'));

/** The lock fields of this process space (none where /proc cannot tell). */
export const OUR_PROCESS_SPACE = {
  ...(OUR_BOOT_ID === undefined ? {} : { bootId: OUR_BOOT_ID }),
  ...(OUR_PID_NAMESPACE === undefined ? {} : { pidNamespace: OUR_PID_NAMESPACE }),
};

/** A pid namespace no process of this machine is in (the kernel numbers namespaces from 4026531834 up). */
export const ANOTHER_PID_NAMESPACE = 'pid:[4026530001]';
/** A boot id no boot of this machine has. */
export const ANOTHER_BOOT_ID = '00000000-0000-4000-8000-000000000000';

/** The tag of this process space in temporary names, as the built command, run from here, gives it. */
export const OUR_SPACE_TAG = spaceTagOf({ hostname: hostname(), ...OUR_PROCESS_SPACE });
/** The tag of another container with our host name and boot (what a run there gives its temporary names). */
export const ANOTHER_CONTAINERS_SPACE_TAG = spaceTagOf({
  hostname: hostname(),
  ...OUR_PROCESS_SPACE,
  pidNamespace: ANOTHER_PID_NAMESPACE,
});

/**
 * A temporary file's name as a run of pid `pid` in the space tagged `spaceTag` gives it
 * (`.v<shard mark>.<pid>-<space>-<16 hex>.vredact-partial`), `hex` repeated for its random part.
 */
export const temporaryNameOf = (pid: number, spaceTag: string, hex: string, shardMark = '') =>
  `.v${shardMark}.${pid}-${spaceTag}-${hex.repeat(16)}.vredact-partial`;
