import { lstat, readdir, rm } from 'node:fs/promises';
import { join, relative, resolve } from 'node:path';
import { PARTIAL_SUFFIX } from '../fs/atomic-write.js';
import { resolveFolderInside } from '../fs/containment.js';
import { writerMayBeAlive } from '../fs/process-info.js';
import { LEASE_MS } from '../fs/lock-lease.js';
import { SPACE_TAG_DIGITS, thisSpaceTag } from '../fs/process-space.js';
import type { Shard } from './options.js';

const SUFFIX = PARTIAL_SUFFIX.replace('.', '\\.');
/** `.v<shard mark>.<pid>-<space tag>-<16 hex>.vredact-partial`: the temporary names of temporaryNameFor. */
const TAGGED_NAME = new RegExp(
  `^\\.v(?:-\\d+-of-\\d+)?\\.(\\d+)-([0-9a-f]{${SPACE_TAG_DIGITS}})-[0-9a-f]{16}${SUFFIX}$`,
);
/** `.<name>.<pid>-<hex>.vredact-partial`: the names of earlier versions, which do not say their space. */
const UNTAGGED_NAME = new RegExp(`^\\..*\\.(\\d+)-[0-9a-f]+${SUFFIX}$`);
/** The mark of a shard's temporary names: `.v-<i>-of-<n>.` (markTemporaryNamesAsShard). */
const SHARD_MARK = /^\.v-(\d+)-of-(\d+)\./;

/** Who wrote a temporary file, as its name says: its pid, and its space's tag unless it is an older version's. */
interface Writer {
  pid: number;
  spaceTag: string | undefined;
}

function writerOf(name: string): Writer | undefined {
  const tagged = TAGGED_NAME.exec(name);
  if (tagged) return { pid: Number(tagged[1]), spaceTag: tagged[2] };
  const untagged = UNTAGGED_NAME.exec(name);
  return untagged ? { pid: Number(untagged[1]), spaceTag: undefined } : undefined;
}

/**
 * Whether the run sweeping (`shard`, when it is one) may remove the partial `name`, written at
 * `mtimeMs`. Its pid is judged only in this process space (src/fs/process-space.ts, the locks' rule);
 * a file of another space, or of an older version that did not say its space, is judged as a lock
 * of elsewhere is, by its lease: its writer writes to it as its bytes come, 256 KiB at a time, so
 * untouched for the lease, it is a dead run's.
 */
function isLeftover(name: string, mtimeMs: number, now: number, shard: Shard | undefined): boolean {
  const writer = writerOf(name);
  if (!writer) return false;
  const judgedByPid = writer.spaceTag === thisSpaceTag();
  if (!shard) return judgedByPid ? !writerMayBeAlive(writer.pid, mtimeMs) : now - mtimeMs > LEASE_MS;
  // A shard holds its own lock, so no other live process writes its marked names, on any host:
  // only this process's own are spared. Anything else may belong to a live writer elsewhere.
  const mark = SHARD_MARK.exec(name);
  if (Number(mark?.[1]) !== shard.index || Number(mark?.[2]) !== shard.count) return false;
  return !(judgedByPid && writer.pid === process.pid && writerMayBeAlive(writer.pid, mtimeMs));
}

/**
 * Removes temporary files left by runs that died (SIGKILL, power loss) in the given folders, all
 * inside `outDir`. Without `shard`, a temporary file whose writer may still run is left alone: one of
 * this process space whose pid is alive and started before the file was last written (a `vredact
 * download` into the same folder, another shard, this very process), and any other touched within
 * the lease (another container's or host's, whose pid says nothing here). A shard, holding its lock,
 * removes its own marked files whatever host wrote them, and nothing else. A folder that is, or lies
 * under, a symbolic link leading outside the output folder is never swept: what is out there is not
 * ours. Returns how many files went.
 */
export async function sweepPartials(
  dirs: Iterable<string>,
  outDir: string,
  shard?: Shard,
  stop?: AbortSignal,
  now = Date.now(),
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
      if (!name.endsWith(PARTIAL_SUFFIX)) continue;
      const path = join(folder, name);
      const info = await lstat(path).catch(() => undefined);
      if (!info || info.isDirectory() || !isLeftover(name, info.mtimeMs, now, shard)) continue;
      await rm(path, { force: true }).catch(() => {});
      removed++;
    }
  }
  return removed;
}
