/**
 * `--lock-wait`: a run that finds its output folder's lock held waits for it instead of refusing at
 * once, as `flock -w` and terraform's `-lock-timeout` do. Refusing stays the default: overlapping cron
 * nights must not pile up. With a wait, a person who starts a run while the nightly one finishes, or a
 * Kubernetes pod replacing a killed one (whose lock holds for its 10-min lease), no longer has to try
 * again by hand or by a Job's retries.
 *
 * Between two tries the run only reads the locks (lock.ts's runsUnderWay): it places its own again
 * only once none that keeps it out is live, since each lock it placed and withdrew could make another
 * starting run refuse. Same rules as a run that does not wait: its share's lock and any overlapping
 * share's (lock-shares.ts), a dead run's lock taken over, a lease judged as it lapses.
 */
import type { Clock } from '../clock.js';
import { formatWait } from '../api/wait-text.js';
import { displayText } from '../output/sanitize.js';
import type { Logger } from '../output/logger.js';
import {
  acquireLock,
  type HeldLock,
  LOCK_NAME,
  LockHeldError,
  type LockOptions,
  runsUnderWay,
} from './lock.js';
import { sharesOverlap } from './lock-shares.js';

/**
 * How often a waiting run looks at the locks, plus up to as much again at random: two runs waiting
 * behind one look at different moments, so that they do not both place their locks and both withdraw
 * them again, time after time.
 */
const LOOK_EVERY_MS = 1000;
/** How long after a lease's end the run looks again: its file time and our clock, read a little apart. */
const PAST_LEASE_MS = 50;

export interface LockWait {
  /** How long to wait for the lock at most; 0 refuses at once, as without `--lock-wait`. */
  waitMs: number;
  clock: Clock;
  /** A first interrupt: the wait ends, and no lock is taken. */
  stop: AbortSignal;
  /** Told who holds the lock at each try that finds it held (for `--stats` lines). */
  onWaiting?: (holder: string) => void;
}

/**
 * The lock of an output folder, taken at once or once the run holding it ends (or its lock is found
 * stale) within the wait; undefined when the wait was interrupted. Throws LockHeldError (exit 2) when
 * the lock is still held at the end of the wait, saying how long the run waited.
 */
export async function acquireLockWaiting(
  outDir: string,
  log: Logger,
  lockOptions: LockOptions,
  wait: LockWait,
): Promise<HeldLock | undefined> {
  const { clock, waitMs } = wait;
  const deadline = clock.now() + waitMs;
  let said = false;
  for (;;) {
    try {
      return await acquireLock(outDir, log, clock.now, lockOptions);
    } catch (error) {
      if (!(error instanceof LockHeldError)) throw error;
      if (waitMs <= 0) throw withWaitOffered(error);
      if (clock.now() >= deadline) throw afterWaiting(error, formatWait(waitMs));
      wait.onWaiting?.(error.holder);
      // One line, however often the holder changes: the run is waiting, and for how long at most.
      if (!said) {
        log.info(
          `waiting up to ${formatWait(waitMs)} for the lock of the output folder ${displayText(outDir)}, held by ${error.holder}`,
        );
      }
      said = true;
    }
    if (!(await untilLooksFree(outDir, lockOptions.name ?? LOCK_NAME, deadline, wait))) return undefined;
  }
}

/** The refusal of a run that did not wait: the hint names the option that would have. */
function withWaitOffered(error: LockHeldError): LockHeldError {
  return new LockHeldError(
    error.message,
    `${error.hint ?? 'wait for it to finish'}; or run again with --lock-wait <duration> to wait for it`,
    error.holder,
  );
}

/** The refusal of a run that waited `waited` (`10m`) for the lock first. */
function afterWaiting(error: LockHeldError, waited: string): LockHeldError {
  return new LockHeldError(
    `${error.message} after waiting ${waited}`,
    `${error.hint ?? 'wait for it to finish'}; or wait longer (--lock-wait)`,
    error.holder,
  );
}

/**
 * Sleeps until no live lock keeps the run out (looked at after one pause at least: the try just
 * failed), or the deadline; false when interrupted meanwhile.
 */
async function untilLooksFree(
  outDir: string,
  name: string,
  deadline: number,
  wait: LockWait,
): Promise<boolean> {
  const { clock, stop } = wait;
  for (let paused = false; ; paused = true) {
    if (stop.aborted) return false;
    const now = clock.now();
    if (now >= deadline) return true;
    const holder = (await runsUnderWay(outDir, now)).find(
      (run) => run.lock === name || sharesOverlap(name, run.lock),
    );
    if (paused && !holder) return true;
    const lapses = holder?.leaseEndMs === undefined ? Infinity : holder.leaseEndMs + PAST_LEASE_MS - now;
    const look = LOOK_EVERY_MS * (1 + clock.random());
    try {
      await clock.sleep(Math.max(PAST_LEASE_MS, Math.min(deadline - now, look, lapses)), stop);
    } catch {
      return false; // only an interrupt ends a sleep early
    }
  }
}
