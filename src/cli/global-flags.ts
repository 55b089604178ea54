/**
 * Global flags typed before the command's name, or between a group's name and its subcommand's
 * (`vredact --json jobs list`, `vredact jobs -q list`), as `aws` and `rclone` take theirs. Every
 * command of the tree declares them (src/cli/every-command.ts), but a command of commands reads its
 * options only up to its subcommand's name: one read there would be the group's, and the
 * subcommand's own `--no-color` default would hide it. They are moved to just after the command's
 * path instead, where the command that runs reads them.
 */
import type { Command } from 'commander';
import { globalOptions } from './option.js';

const spellings = (takesValue: boolean) =>
  new Set(
    globalOptions()
      .filter((option) => option.required === takesValue)
      .flatMap((option) => [option.short, option.long])
      .filter((name): name is string => name !== undefined),
  );
const SWITCHES = spellings(false);
const WITH_VALUE = spellings(true);

/** How many words the global flag at `args[i]` takes (0: it is not one). */
function globalFlagLength(args: readonly string[], i: number): number {
  const word = args[i] ?? '';
  if (SWITCHES.has(word)) return 1;
  if (WITH_VALUE.has(word)) return i + 1 < args.length ? 2 : 1;
  const equals = word.indexOf('=');
  return equals > 0 && WITH_VALUE.has(word.slice(0, equals)) ? 1 : 0;
}

/** The user's words (after `node vredact`) with the global flags of the command path moved after it. */
export function moveGlobalFlags(program: Command, args: readonly string[]): string[] {
  const path: string[] = [];
  const flags: string[] = [];
  let command = program;
  let i = 0;
  while (i < args.length) {
    const length = globalFlagLength(args, i);
    if (length > 0) {
      flags.push(...args.slice(i, i + length));
      i += length;
      continue;
    }
    const word = args[i] ?? '';
    const sub = command.commands.find((c) => c.name() === word || c.aliases().includes(word));
    if (!sub) break;
    path.push(word);
    command = sub;
    i++;
  }
  // No command named: the program takes them itself (`vredact --json` shows its help), or commander
  // reports the word that names no command.
  if (flags.length === 0 || command === program) return [...args];
  return [...path, ...flags, ...args.slice(i)];
}
