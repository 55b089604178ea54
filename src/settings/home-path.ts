/**
 * `~` at the start of a path option or the `out-dir` setting means the home folder, as the shell
 * would have made it: the shell leaves it as it is in `--out-dir=~/x`, in quotes and in the config
 * file, and a folder named `~` made in the working folder invites an `rm -rf ~` to clean it up.
 * Only `~` alone or before a separator: `~user` is left as written (a name to look up, which Node.js
 * cannot), and `./~` names a folder called `~`.
 */
import { homedir } from 'node:os';
import { join, sep } from 'node:path';
import { UsageError } from '../errors.js';

/**
 * The home folder, or undefined where none is known: HOME unset and no passwd entry for the user (a
 * container run as an arbitrary uid), where Node.js's homedir() throws instead.
 */
export function homeFolder(): string | undefined {
  try {
    return homedir();
  } catch {
    return undefined;
  }
}

// `null`: no home folder is known (an explicit undefined would take the default).
export function expandHome(path: string, home: string | null = homeFolder() ?? null): string {
  const rest =
    path === '~'
      ? ''
      : path.startsWith('~/') || (sep === '\\' && path.startsWith('~\\'))
        ? path.slice(2)
        : undefined;
  if (rest === undefined) return path;
  if (home === null)
    throw new UsageError(
      `cannot expand ~ in ${path}: no home folder is known (HOME is unset)`,
      'give the full path, or set HOME',
    );
  return rest === '' ? home : join(home, rest);
}
