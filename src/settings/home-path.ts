/**
 * `~` at the start of a path option or the `out-dir` setting means the home folder, as the shell
 * would have made it: the shell leaves it as it is in `--out-dir=~/x`, in quotes and in the config
 * file, and a folder named `~` made in the working folder invites an `rm -rf ~` to clean it up.
 * Only `~` alone or before a separator: `~user` is left as written (a name to look up, which Node.js
 * cannot), and `./~` names a folder called `~`.
 */
import { homedir } from 'node:os';
import { join, sep } from 'node:path';

export function expandHome(path: string, home: string = homedir()): string {
  if (path === '~') return home;
  if (path.startsWith('~/') || (sep === '\\' && path.startsWith('~\\'))) return join(home, path.slice(2));
  return path;
}
