/**
 * A run's lock found to be another run's, or removed, while the run held it (src/fs/lock-fence.ts):
 * the batch stops as on a full disk, exit 1 (files were left pending, and some may have been sent).
 */
import { CliError, ExitCode } from '../errors.js';
import type { LostLock } from '../fs/lock-fence.js';
import { lockRunShown } from '../fs/lock-owner.js';
import { displayText } from '../output/sanitize.js';

/** The lock of this run was taken over by another run, or removed: the batch stops (exit 1). */
export class LockLostError extends CliError {
  override name = 'LockLostError';
  constructor(message: string, hint: string) {
    super(message, ExitCode.partial, hint);
  }
}

/** What a run whose lock `path` of the output folder `outDir` was lost says. */
export function runLockLost(outDir: string, path: string): (lost: LostLock) => LockLostError {
  return ({ removed, owner, unrefreshed }) => {
    const check = 'check that no two machines are given the same output folder and shard';
    if (removed) {
      return new LockLostError(
        `the lock ${displayText(path)} was removed while this run held it (by hand, or by a run that took it over and has ended)`,
        `run the same command again to finish the batch; ${check}`,
      );
    }
    const who = owner
      ? displayText(`${lockRunShown(owner)}, at ${owner.startedAt}`)
      : 'its lock cannot be read';
    return new LockLostError(
      `the lock of the output folder ${displayText(outDir)} was taken over by another run (${who}) while this run went ${unrefreshed} without refreshing it (was this machine suspended, or the process stopped?)`,
      `nothing to do: that run goes on with the batch; unless it replaced this one on purpose, ${check}`,
    );
  };
}
