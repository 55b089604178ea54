/**
 * What every command of the tree has, given once the tree is built so that a command added later
 * cannot forget it: the contract's six global flags, parse errors reported as the tool's usage
 * errors (naming that command's help), a positional argument's value outside its fixed set refused
 * as every refused value is, and, for a command of commands (the program,
 * `jobs`, `config`), its help on stdout with exit 0 when no subcommand is named, as `gh repo` does.
 */
import { Command } from 'commander';
import { globalOptions } from './option.js';
import { refuseValuesNotAllowed, throwParseErrorsAsUsage } from './parse-errors.js';

export function completeCommandTree(program: Command): void {
  for (const command of everyCommand(program)) {
    addMissingGlobalOptions(command);
    throwParseErrorsAsUsage(command);
    refuseValuesNotAllowed(command);
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

/**
 * Reports `word` as commander reports a word that names no subcommand of `group`: its words, its
 * "Did you mean", its usage error naming the group's help. commander does so only for a group with no action, and these have one
 * (their help, exit 0), so a stand-in with the group's settings and subcommand names, and no action,
 * is given the word to parse. The report stays commander's own, through its public API alone.
 */
function reportUnknownSubcommand(group: Command, word: string): never {
  const standIn = new Command(group.name()).copyInheritedSettings(group);
  for (const sub of group.commands) standIn.command(sub.name()).aliases(sub.aliases());
  // After `--`, a word that looks like an option (`vredact jobs -- -x`) is still the word reported.
  standIn.parse(['--', word], { from: 'user' });
  throw new Error(`commander did not report the unknown command ${JSON.stringify(word)}`);
}

function showHelpWithoutSubcommand(group: Command): void {
  group
    // Its options end where a subcommand's name starts: in `jobs list --no-color` the flag is list's,
    // whose own default would otherwise hide it (src/cli/global-flags.ts moves the ones typed before).
    .enablePositionalOptions()
    // A word that names no subcommand reaches the action, to be reported as commander would have.
    .allowExcessArguments()
    .action(() => {
      const [word] = group.args;
      if (word !== undefined) reportUnknownSubcommand(group, word);
      group.outputHelp();
    });
}
