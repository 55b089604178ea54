/**
 * Symbolic links that lead back up the tree (`calls/again -> ..`, `a/b -> ../a`). The walkers follow
 * links to folders and do not look for loops, so each such link was walked again and again until the
 * path held 40 links (ELOOP): three links to `.` in one folder made 3^40 paths, and a dry run took
 * gigabytes and never ended. As `find -L` does, a folder whose real path is that of one of the
 * folders above it (by its path as walked, up to `/`) is read as empty: everything under it is
 * found by the path above. A link to a folder elsewhere (outside the tree, or a sibling) is followed.
 */
import { realpath, type readdir } from 'node:fs';
import { dirname } from 'node:path';

type Callback = (error: NodeJS.ErrnoException | null, entries: unknown) => void;

/**
 * A `readdir` for a walker's `fs` option that reads a folder in a loop as empty. One per listing:
 * it remembers the real path of each folder it was asked for (one string per folder, not per file).
 */
export function loopSafeReaddir(inner: typeof readdir): typeof readdir {
  const reals = new Map<string, Promise<string | undefined>>();
  const realOf = (path: string): Promise<string | undefined> => {
    let real = reals.get(path);
    if (!real) {
      // A folder that cannot be resolved is left to readdir, which reports why.
      real = new Promise((resolve) =>
        realpath.native(path, (error, found) => resolve(error ? undefined : found)),
      );
      reals.set(path, real);
    }
    return real;
  };
  const inLoop = async (path: string): Promise<boolean> => {
    const own = await realOf(path);
    if (own === undefined) return false;
    for (let up = dirname(path); ; up = dirname(up)) {
      if ((await realOf(up)) === own) return true;
      if (dirname(up) === up) return false;
    }
  };
  // The walkers call readdir(path, callback) or readdir(path, options, callback).
  const guarded = (path: string, ...rest: unknown[]): void => {
    const callback = rest[rest.length - 1] as Callback;
    void inLoop(path).then((loop) => {
      if (loop) callback(null, []);
      else (inner as (...args: unknown[]) => void)(path, ...rest);
    });
  };
  return guarded as unknown as typeof readdir;
}
