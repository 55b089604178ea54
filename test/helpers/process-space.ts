/**
 * What a lock written by a run in this process space (this test's container and boot) says beyond
 * its pid and host name, read from Linux's /proc as a test sees it; elsewhere nothing, as a run there
 * writes nothing. A test writes these fields to make a lock its run's own, or changes one to make it
 * another container's.
 */
import { readFileSync, readlinkSync } from 'node:fs';

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
