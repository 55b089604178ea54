/**
 * commander's parse errors (an unknown option or command, a missing argument or option value) as the
 * tool's own usage errors, so that they are printed by the one error printer
 * (src/report-error.ts) like every other error: one `error:` line, then one `hint:` line that names
 * the help of the command the words were given to, with commander's suggestion when it has one.
 */
import type { Command, CommanderError } from 'commander';
import { UsageError } from '../errors.js';
import { choiceError } from '../settings/bad-value.js';

/** commander's suggestion, as it appends it to a message: `\n(Did you mean --overwrite?)`. */
const SUGGESTION = /\n\(Did you mean (.+)\?\)$/;
const UNKNOWN_OPTION = /^unknown option '(--[^=]+)(=[^]*)?'$/;

/** `command`'s parse errors are thrown as usage errors; help and version (exit 0) pass as they came. */
export function throwParseErrorsAsUsage(command: Command): void {
  command.exitOverride((error) => {
    if (error.exitCode === 0) throw error;
    throw usageErrorOf(command, error);
  });
}

/**
 * `command`'s positional arguments with a fixed set of values (`completion <shell>`, `config get
 * <key>`) refuse another in the shape of every value refused, with the one meant where it is obvious
 * (src/settings/bad-value.ts): commander's own check said "command-argument value 'Tcsh' is invalid
 * for argument 'shell'. Allowed choices are …". The values stay the argument's, for help and completion.
 */
export function refuseValuesNotAllowed(command: Command): void {
  for (const argument of command.registeredArguments) {
    const allowed = argument.argChoices;
    if (!allowed) continue;
    argument.argParser((value: string, previous: unknown) => {
      if (!allowed.includes(value)) {
        throw choiceError(`<${argument.name()}>`, value, allowed, `\`${commandPath(command)} --help\``);
      }
      return argument.variadic ? [...(Array.isArray(previous) ? previous : []), value] : value;
    });
  }
}

export function usageErrorOf(command: Command, error: CommanderError): UsageError {
  const text = error.message.replace(/^error: /, '');
  const suggested = SUGGESTION.exec(text);
  const message = suggested ? text.slice(0, suggested.index) : text;
  const suggestion =
    suggested?.[1] ??
    (error.code === 'commander.unknownOption' ? prefixedOption(command, message) : undefined);
  const help = `\`${commandPath(command)} --help\``;
  return new UsageError(message, suggestion ? `did you mean ${suggestion}? See ${help}` : `see ${help}`);
}

/**
 * The one long option of `command` that the unknown one begins (`--out` for `--out-dir`): commander
 * suggests by edit distance, which misses an option cut short. It is only suggested, never taken:
 * a later option with the same beginning would change what an old script means (gh and git do the
 * same).
 */
function prefixedOption(command: Command, message: string): string | undefined {
  const typed = UNKNOWN_OPTION.exec(message)?.[1];
  if (typed === undefined) return undefined;
  // Help is kept apart from the options by commander; every command of the tree has it as --help.
  const longs = [...command.options.map((option) => option.long), '--help'];
  const matches = new Set(longs.filter((long): long is string => long?.startsWith(typed) === true));
  return matches.size === 1 ? [...matches][0] : undefined;
}

/** `vredact jobs content`: the words that name `command`, from the program's name. */
export function commandPath(command: Command): string {
  const names: string[] = [];
  for (let at: Command | null = command; at; at = at.parent) names.unshift(at.name());
  return names.join(' ');
}
