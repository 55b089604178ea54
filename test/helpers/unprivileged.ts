/**
 * CLI runs to which permission bits apply. Root ignores them (a `chmod 000` file reads as any other),
 * so as root the run drops, with setpriv, the capabilities that override them; where that cannot be
 * done, `permissionBitsPrefix` answers undefined and the test skips, saying why.
 */
import { spawnSync } from 'node:child_process';
import { execa, type Options, type ResultPromise } from 'execa';
import { BIN } from './cli.js';

export const PERMISSIONS_SKIP_REASON =
  'runs as root without setpriv: permission bits cannot refuse anything here';

const OVERRIDES = '-dac_override,-dac_read_search';

/** The command that runs a program with permission bits applying to it: [] when they already do. */
export function permissionBitsPrefix(): string[] | undefined {
  if (process.getuid?.() !== 0) return [];
  if (spawnSync('setpriv', ['--version']).status !== 0) return undefined;
  return ['setpriv', `--inh-caps=${OVERRIDES}`, `--bounding-set=${OVERRIDES}`];
}

/** runCli (see cli.ts) under `prefix`, from permissionBitsPrefix. */
export function runCliUnder(
  prefix: readonly string[],
  args: string[],
  options: Options & { env: NodeJS.ProcessEnv },
): ResultPromise {
  const [command, ...rest] = [...prefix, process.execPath, BIN, ...args] as [string, ...string[]];
  const stdin =
    options.input === undefined && options.inputFile === undefined ? { stdin: 'ignore' as const } : {};
  return execa(command, rest, {
    reject: false,
    extendEnv: false,
    ...stdin,
    ...options,
  });
}
