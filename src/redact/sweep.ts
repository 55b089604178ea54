import { lstat, readdir, rm } from 'node:fs/promises';
import { join, relative, resolve } from 'node:path';
import { PARTIAL_SUFFIX } from '../fs/atomic-write.js';
import { resolveFolderInside } from '../fs/containment.js';
import { writerMayBeAlive } from '../fs/process-info.js';
import type { Shard } from './options.js';

/** `.<name>.<pid>-<hex>.vredact-partial`: the temporary names of writeFileAtomically. */
const PARTIAL_NAME = new RegExp(`^\\..*\\.(\\d+)-[0-9a-f]+${PARTIAL_SUFFIX.replace('.', '\\.')}$`);
/** The mark of a shard's temporary names: `.v-<i>-of-<n>.` (markTemporaryNamesAsShard). */
const SHARD_MARK = /^\.v-(\d+)-of-(\d+)\./;

/** Whether the run sweeping (`shard`, when it is one) may remove the partial `name`, written at `mtimeMs`. */
function isLeftover(name: string, mtimeMs: number, shard: Shard | undefined): boolean {
  const match = PARTIAL_NAME.exec(name);
  if (!match) return false;
  const pid = Number(match[1]);
  if (!shard) return !writerMayBeAlive(pid, mtimeMs);
  // A shard holds its own lock, so no other live process writes its marked names, on any host:
  // only this process's own are spared. Anything else may belong to a live writer elsewhere.
  const mark = SHARD_MARK.exec(name);
  if (Number(mark?.[1]) !== shard.index || Number(mark?.[2]) !== shard.count) return false;
  return pid !== process.pid || !writerMayBeAlive(pid, mtimeMs);
}

/**
 * Removes temporary files left by runs that died (SIGKILL, power loss) in the given folders, all
 * inside `outDir`. Without `shard`, a temporary file whose writer may still run on this host (its
 * pid is alive and started before the file was last written: a `vredact download` into the same
 * folder, another shard, this very process) is left alone. A shard, holding its lock, removes its
 * own marked files whatever host wrote them, and nothing else. A folder that is, or lies under, a
 * symbolic link leading outside the output folder is never swept: what is out there is not ours.
 * Returns how many files went.
 */
export async function sweepPartials(
  dirs: Iterable<string>,
  outDir: string,
  shard?: Shard,
  stop?: AbortSignal,
): Promise<number> {
  let removed = 0;
  for (const dir of dirs) {
    // A first interrupt ends the sweep (one folder of outputs at a time): what is left, a later run sweeps.
    if (stop?.aborted) break;
    let folder: string;
    let names: string[];
    try {
      folder = await resolveFolderInside(outDir, relative(resolve(outDir), resolve(dir)));
      names = await readdir(folder);
    } catch {
      continue;
    }
    for (const name of names) {
      if (!PARTIAL_NAME.test(name)) continue;
      const path = join(folder, name);
      const info = await lstat(path).catch(() => undefined);
      if (!info || info.isDirectory() || !isLeftover(name, info.mtimeMs, shard)) continue;
      await rm(path, { force: true }).catch(() => {});
      removed++;
    }
  }
  return removed;
}
