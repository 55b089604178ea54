import type { Command, Option } from 'commander';
import { kindOf } from '../../cli/positional.js';
import { HELP_TOPICS } from '../../help/topics.js';

/** What a completion script needs to know of one option. */
export interface OptionSpec {
  /** `-c`, `--concurrency`: every spelling. */
  names: string[];
  takesValue: boolean;
  choices: readonly string[] | undefined;
  /** What the value names, from its placeholder: file and folder values complete as paths. */
  valueKind: 'file' | 'dir' | 'other';
  description: string;
}

/** One command of the tree, with its path from the root (`['jobs', 'list']`). */
export interface CommandSpec {
  path: string[];
  description: string;
  options: OptionSpec[];
  subcommands: CommandSpec[];
  /** Whether positional arguments name paths of this machine (redact's inputs): see positional.ts. */
  takesFiles: boolean;
  /** Allowed values of the first positional argument (config keys, shells, help's topics and commands). */
  argumentChoices: readonly string[];
  /** Whether its arguments name a command, word by word (`help jobs list`): each its subcommand's. */
  namesCommands: boolean;
}

function optionSpec(option: Option): OptionSpec {
  const takesValue = option.required || option.optional;
  const placeholder = /[<[](\w[\w.-]*)/.exec(option.flags)?.[1] ?? '';
  return {
    names: [option.short, option.long].filter((name): name is string => Boolean(name)),
    takesValue,
    choices: option.argChoices,
    valueKind: /dir/.test(placeholder) ? 'dir' : /file/.test(placeholder) ? 'file' : 'other',
    description: option.description,
  };
}

const HELP: OptionSpec = {
  names: ['-h', '--help'],
  takesValue: false,
  choices: undefined,
  valueKind: 'other',
  description: 'show help',
};

/** The program's `help`, which takes a topic or a command path (`help jobs list`). */
function isHelp(command: Command): boolean {
  return command.name() === 'help' && command.parent !== null && !command.parent.parent;
}

/**
 * What `vredact help` takes first: a topic or a command. Not commander choices: those would refuse
 * the words after a command (`help jobs list`).
 */
function firstArgumentWords(command: Command): readonly string[] {
  if (command.parent && isHelp(command)) {
    return [...Object.keys(HELP_TOPICS), ...command.parent.commands.map((sub) => sub.name())];
  }
  return command.registeredArguments[0]?.argChoices ?? [];
}

/**
 * Walks the commander tree; hidden options are left out, help is added to every command (commander
 * keeps it apart from the options, unlike the program's `-V, --version`).
 */
export function describeTree(command: Command, path: string[] = []): CommandSpec {
  const options = command.options.filter((option) => !option.hidden).map(optionSpec);
  options.push(HELP);
  return {
    path,
    description: command.description(),
    options,
    subcommands: command.commands.map((sub) => describeTree(sub, [...path, sub.name()])),
    takesFiles: command.registeredArguments.some((argument) => kindOf(argument) === 'path'),
    argumentChoices: firstArgumentWords(command),
    namesCommands: isHelp(command),
  };
}

/** Every command of the tree, root first. */
export function flatten(spec: CommandSpec): CommandSpec[] {
  return [spec, ...spec.subcommands.flatMap(flatten)];
}
