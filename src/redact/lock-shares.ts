/**
 * Which runs may share an output folder at once. A run's lock names its share of the inputs: `lock`
 * for all of them, `lock.<i>-of-<n>` for shard i of n. Shards of one count split the inputs between
 * them, so they run side by side; any other two shares hold inputs in common, and two runs over one
 * input at once would each send it.
 */

/** A lock file's name: `lock`, or `lock.<i>-of-<n>` (not the temporary names written beside them). */
const LOCK_FILE = /^lock(?:\.(\d+)-of-(\d+))?$/;

interface Share {
  index: number;
  count: number;
}

/** The share a lock file's name covers (all inputs: 1 of 1), or undefined for any other file. */
function shareOf(name: string): Share | undefined {
  const match = LOCK_FILE.exec(name);
  if (!match) return undefined;
  return match[1] === undefined
    ? { index: 1, count: 1 }
    : { index: Number(match[1]), count: Number(match[2]) };
}

/** The shard a lock's name is for (`lock.<i>-of-<n>`), or undefined for a run over all inputs. */
export function shardOfLock(lockName: string): Share | undefined {
  const share = shareOf(lockName);
  return share && share.count > 1 ? share : undefined;
}

/** Whether the runs holding these two locks may send the same input: any pair but two shards of one count. */
export function sharesOverlap(lockName: string, otherName: string): boolean {
  const mine = shareOf(lockName);
  const other = shareOf(otherName);
  if (!mine || !other || lockName === otherName) return false;
  return mine.count === 1 || other.count === 1 || mine.count !== other.count;
}

/** How a lock's run is named in a message: "all its inputs" or "shard i/n". */
export function shareLabel(lockName: string): string {
  const share = shareOf(lockName);
  return !share || share.count === 1 ? 'all its inputs' : `shard ${share.index}/${share.count}`;
}
