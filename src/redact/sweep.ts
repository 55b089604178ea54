import { lstat, readdir, rm } from 'node:fs/promises';
import { join, relative, resolve } from 'node:path';
import { PARTIAL_SUFFIX } from '../fs/atomic-write.js';
import { resolveFolderInside } from '../fs/containment.js';
import { writerMayBeAlive } from '../fs/process-info.js';

/** `.<name>.<pid>-<hex>.vredact-partial`: the temporary names of writeFileAtomically. */
const PARTIAL_NAME = new RegExp(`^\\..*\\.(\\d+)-[0-9a-f]+${PARTIAL_SUFFIX.replace('.', '\\.')}$`);

/**
 * Removes temporary files left by runs that died (SIGKILL, power loss) in the given folders, all
 * inside `outDir`. A temporary file whose writer may still run (its pid is alive and started before
 * the file was last written: a `vredact download` into the same folder, another shard, this very
 * process) is left alone. A folder
 * that is, or lies under, a symbolic link leading outside the output folder is never swept: what is
 * out there is not ours. Returns how many files went.
 */
export async function sweepPartials(dirs: Iterable<string>, outDir: string): Promise<number> {
  let removed = 0;
  for (const dir of dirs) {
    let folder: string;
    let names: string[];
    try {
      folder = await resolveFolderInside(outDir, relative(resolve(outDir), resolve(dir)));
      names = await readdir(folder);
    } catch {
      continue;
    }
    for (const name of names) {
      const match = PARTIAL_NAME.exec(name);
      if (!match) continue;
      const path = join(folder, name);
      const info = await lstat(path).catch(() => undefined);
      if (!info || info.isDirectory()) continue;
      // Our own pid counts too: a file written before this process started is a predecessor's.
      if (writerMayBeAlive(Number(match[1]), info.mtimeMs)) continue;
      await rm(path, { force: true }).catch(() => {});
      removed++;
    }
  }
  return removed;
}
