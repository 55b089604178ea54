/**
 * commander's parse errors (an unknown option or command, a missing argument, a value outside the
 * allowed ones) as the tool's own usage errors, so that they are printed by the one error printer
 * (src/report-error.ts) like every other error: one `error:` line, then one `hint:` line that names
 * the help of the command the words were given to, with commander's suggestion when it has one.
 */
import type { Command, CommanderError } from 'commander';
import { UsageError } from '../errors.js';

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
