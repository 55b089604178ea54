/** The command tree as completion scripts see it, checked against commander's own tree. */
import { Argument, Command, Option } from 'commander';
import { describe, expect, it } from 'vitest';
import { positional } from '../../../src/cli/positional.js';
import { buildProgram } from '../../../src/cli/program.js';
import { type CommandSpec, describeTree, flatten } from '../../../src/commands/completion/tree.js';

/** Every command of a commander tree by its path, walked independently of describeTree. */
function commandsByPath(command: Command, path: string[] = []): Map<string, Command> {
  const found = new Map<string, Command>([[path.join(' '), command]]);
  for (const sub of command.commands) {
    for (const [key, value] of commandsByPath(sub, [...path, sub.name()])) found.set(key, value);
  }
  return found;
}

const specsByPath = (root: CommandSpec) => new Map(flatten(root).map((spec) => [spec.path.join(' '), spec]));

describe('describeTree over the real program', () => {
  const program = buildProgram();
  const tree = describeTree(program);
  const specs = specsByPath(tree);
  const commands = commandsByPath(program);

  it('has every command, with its path and description, and nothing else', () => {
    expect([...specs.keys()].sort()).toEqual([...commands.keys()].sort());
    for (const [path, command] of commands) {
      const spec = specs.get(path)!;
      expect(spec.path).toEqual(path === '' ? [] : path.split(' '));
      expect(spec.description).toBe(command.description());
      expect(spec.subcommands.map((sub) => sub.path.at(-1))).toEqual(
        command.commands.map((sub) => sub.name()),
      );
    }
    for (const name of ['redact', 'status', 'download', 'jobs list', 'config set', 'completion', 'sandbox'])
      expect(specs.has(name), name).toBe(true);
  });

  it('has every visible option of each command under all its spellings, plus help', () => {
    for (const [path, command] of commands) {
      const names = specs.get(path)!.options.map((option) => option.names);
      const expected = command.options
        .filter((option) => !option.hidden)
        .map((option) => [option.short, option.long].filter((name): name is string => Boolean(name)));
      expect(names, path).toEqual([...expected, ['-h', '--help']]);
    }
    // The program's -V, --version is one of commander's options: once, not twice. The global flags
    // are the program's too (`vredact --json jobs list`).
    expect(specs.get('')!.options.map((option) => option.names)).toEqual([
      ['-V', '--version'],
      ['--json'],
      ['-q', '--quiet'],
      ['-v', '--verbose'],
      ['--no-color'],
      ['--timeout'],
      ['--max-retries'],
      ['-h', '--help'],
    ]);
  });

  it('knows which options take a value, their choices, and which values are paths', () => {
    const redact = specs.get('redact')!;
    const option = (name: string) => redact.options.find((o) => o.names.includes(name))!;
    expect(option('--out-dir')).toMatchObject({
      names: ['-o', '--out-dir'],
      takesValue: true,
      valueKind: 'dir',
    });
    expect(option('--files-from')).toMatchObject({ takesValue: true, valueKind: 'file' });
    expect(option('--concurrency')).toMatchObject({
      takesValue: true,
      valueKind: 'other',
      choices: undefined,
    });
    expect(option('--gender')).toMatchObject({
      takesValue: true,
      choices: ['same', 'opposite', 'random', 'f', 'm'],
    });
    expect(option('--dry-run')).toMatchObject({ takesValue: false, choices: undefined });
    // A duration, not a path: `--min-age 1<Tab>` offers no file.
    expect(option('--min-age')).toMatchObject({ takesValue: true, valueKind: 'other', choices: undefined });
    expect(option('--no-color')).toMatchObject({ takesValue: false });
    expect(specs.get('sandbox')!.options.find((o) => o.names.includes('--data-dir'))).toMatchObject({
      valueKind: 'dir',
    });
  });

  it('marks the commands whose arguments are files, and the argument choices', () => {
    expect(specs.get('redact')!.takesFiles).toBe(true);
    expect(specs.get('status')!.takesFiles).toBe(false);
    // A job id and a file name on the service are no paths of this machine, whatever their names say.
    expect(specs.get('download')!.takesFiles).toBe(false);
    expect(specs.get('jobs content')!.takesFiles).toBe(false);
    expect(specs.get('completion')!.argumentChoices).toEqual(['bash', 'zsh', 'fish']);
    expect(specs.get('config set')!.argumentChoices).toContain('concurrency');
    expect(specs.get('jobs')!.argumentChoices).toEqual([]);
    // help takes a topic or a command, not commander choices (help jobs list must pass).
    expect(specs.get('help')!.argumentChoices).toEqual([
      'exit-codes',
      'environment',
      'journal',
      ...program.commands.map((command) => command.name()),
    ]);
    // Its words after the first follow the command tree (`help jobs list`).
    expect([...specs].filter(([, spec]) => spec.namesCommands).map(([path]) => path)).toEqual(['help']);
  });
});

describe('describeTree over a small program', () => {
  const program = new Command('tool').description('a tool').version('1.0.0', '-V, --version');
  program
    .command('send')
    .description('send files')
    .addArgument(positional('<inputs...>', 'what to send', 'path'))
    .option('--log-file [file]', 'log here')
    .addOption(new Option('--secret <value>', 'never shown').hideHelp())
    .addOption(new Option('-m, --mode <mode>', 'how').choices(['fast', 'slow']));
  program.command('pick').addArgument(new Argument('<colour>').choices(['red', 'blue']));
  program.command('fetch').addArgument(positional('<fileName>', 'a file on the service', 'service-file'));

  it('leaves hidden options out, reads an optional value, and has --version at the root only, once', () => {
    const tree = describeTree(program);
    const send = tree.subcommands[0]!;
    expect(send.path).toEqual(['send']);
    expect(send.takesFiles).toBe(true);
    expect(send.options.map((o) => o.names)).toEqual([['--log-file'], ['-m', '--mode'], ['-h', '--help']]);
    expect(send.options[0]).toMatchObject({ takesValue: true, valueKind: 'file', description: 'log here' });
    expect(send.options[1]).toMatchObject({ choices: ['fast', 'slow'], valueKind: 'other' });
    expect(tree.options.map((o) => o.names)).toEqual([
      ['-V', '--version'],
      ['-h', '--help'],
    ]);
    const pick = tree.subcommands[1]!;
    expect(pick).toMatchObject({ path: ['pick'], takesFiles: false, argumentChoices: ['red', 'blue'] });
    // Only a positional marked a path is one: not by its name.
    expect(tree.subcommands[2]).toMatchObject({ path: ['fetch'], takesFiles: false });
  });

  it('flattens root first, then depth first in declaration order', () => {
    const nested = new Command('n');
    nested.command('a').command('a1');
    nested.command('b');
    expect(flatten(describeTree(nested)).map((spec) => spec.path.join(' '))).toEqual(['', 'a', 'a a1', 'b']);
  });
});
