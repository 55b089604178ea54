import type { Command } from 'commander';
import { UsageError } from '../../errors.js';
import { bashScript } from './bash.js';
import { fishScript } from './fish.js';
import { SHELLS } from './shells.js';
import { describeTree } from './tree.js';
import { zshScript } from './zsh.js';

/** The completion script of `program` (the root of the command tree) for one shell. */
export function completionScript(program: Command, shell: string): string {
  const tree = describeTree(program);
  const name = program.name();
  switch (shell) {
    case 'bash':
      return bashScript(tree, name);
    case 'zsh':
      return zshScript(tree, name);
    case 'fish':
      return fishScript(tree, name);
    default:
      throw new UsageError(`no completion for the shell "${shell}"`, `choose one of ${SHELLS.join(', ')}`);
  }
}
