import { readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { PARTIAL_SUFFIX } from '../fs/atomic-write.js';
import { processAlive } from './lock.js';

/** `.<name>.<pid>-<hex>.vredact-partial`: the temporary names of writeFileAtomically. */
const PARTIAL_NAME = new RegExp(`^\\..+\\.(\\d+)-[0-9a-f]+${PARTIAL_SUFFIX.replace('.', '\\.')}$`);

/**
 * Removes temporary files left by runs that died (SIGKILL, power loss) in the given folders. Runs
 * under the output folder's lock, so no other redact run is writing there; a temporary file of a
 * live process (say a `vredact download` into the same folder) is left alone. Returns how many went.
 */
export async function sweepPartials(dirs: Iterable<string>): Promise<number> {
  let removed = 0;
  for (const dir of dirs) {
    let names: string[];
    try {
      names = await readdir(dir);
    } catch {
      continue;
    }
    for (const name of names) {
      const match = PARTIAL_NAME.exec(name);
      if (!match) continue;
      const pid = Number(match[1]);
      if (pid !== process.pid && processAlive(pid)) continue;
      await rm(join(dir, name), { force: true }).catch(() => {});
      removed++;
    }
  }
  return removed;
}
