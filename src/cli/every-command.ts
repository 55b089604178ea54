/**
 * What every command of the tree has, given once the tree is built so that a command added later
 * cannot forget it: the contract's six global flags, and, for a command of commands (the program,
 * `jobs`, `config`), its help on stdout with exit 0 when no subcommand is named, as `gh repo` does.
 */
import type { Command } from 'commander';
import { globalOptions } from './option.js';

export function completeCommandTree(program: Command): void {
  for (const command of everyCommand(program)) {
    addMissingGlobalOptions(command);
    if (command.commands.length > 0) showHelpWithoutSubcommand(command);
  }
}

function* everyCommand(command: Command): Generator<Command> {
  yield command;
  for (const sub of command.commands) yield* everyCommand(sub);
}

/** A command that declares a global flag itself keeps its own, which says what the flag means there. */
function addMissingGlobalOptions(command: Command): void {
  const declared = new Set(command.options.map((option) => option.long));
  for (const option of globalOptions()) {
    if (!declared.has(option.long)) command.addOption(option);
  }
}

/** commander's own report of a word that names no subcommand (with its "Did you mean"); not in its types. */
type ReportsUnknownCommand = { unknownCommand(): never };

function showHelpWithoutSubcommand(group: Command): void {
  group
    // Its options end where a subcommand's name starts: in `jobs list --no-color` the flag is list's,
    // whose own default would otherwise hide it (src/cli/global-flags.ts moves the ones typed before).
    .enablePositionalOptions()
    // A word that names no subcommand reaches the action, to be reported as commander would have.
    .allowExcessArguments()
    .action(() => {
      if (group.args.length > 0) (group as unknown as ReportsUnknownCommand).unknownCommand();
      group.outputHelp();
    });
}
