/** The command tree: the one place where commands and options are declared. */
import { Argument, Command } from 'commander';
import { SHELLS } from '../commands/completion/shells.js';
import { UsageError } from '../errors.js';
import { HELP_TOPICS, topicList } from '../help/topics.js';
import { nearestChoice } from '../settings/bad-value.js';
import { versionLine } from '../version.js';
import { completeCommandTree } from './every-command.js';
import { formatHelpItem, helpWriter } from './help-layout.js';
import { addConfigCommands, addLogoutCommand, addSandboxCommand } from './local-commands.js';
import { addExamples, describeArgument, describeOption } from './option.js';
import {
  addDownloadCommand,
  addJobsCommands,
  addLoginCommand,
  addRedactCommand,
  addStatusCommand,
} from './service-commands.js';

export function buildProgram(): Command {
  const program = new Command('vredact')
    .description(
      'Batch voice redaction with the Voice Redaction Service: WAV and MP3 recordings in, redacted WAV files out. Re-run a command to finish what a failure left undone.',
    )
    .version(versionLine(), '-V, --version', 'print the version, with Node.js version and platform')
    .helpOption('-h, --help', 'show help for a command')
    // Both are inherited by the subcommands added below: help lines show defaults, env and config
    // keys, and commander prints no error of its own. Its parse errors are thrown as usage errors
    // (src/cli/parse-errors.ts, given to every command by src/cli/every-command.ts) and printed by
    // the one error printer, which escapes the words they quote (a shell's `*` makes a file name one).
    .configureHelp({
      optionDescription: describeOption,
      argumentDescription: describeArgument,
      formatItem: formatHelpItem,
      // The description of a command wraps on a terminal narrower than 40 columns too.
      minWidthToWrap: 16,
    })
    .configureOutput({
      outputError: () => {},
      writeOut: helpWriter(process.stdout),
      writeErr: helpWriter(process.stderr),
    })
    .exitOverride()
    .helpCommand(false);

  addRedactCommand(program);
  addStatusCommand(program);
  addDownloadCommand(program);
  addJobsCommands(program);
  addLoginCommand(program);
  addLogoutCommand(program);
  addConfigCommands(program);
  addSandboxCommand(program);
  addHelpCommand(program);
  addCompletionCommand(program);
  completeCommandTree(program);

  program.addHelpText(
    'after',
    `
Help topics:
${topicList()}

Examples:
  $ vredact config set base-url https://redaction.example.com && vredact login
  $ vredact redact ./calls -o ./redacted
  $ vredact help redact
Run \`vredact <command> --help\` for a command's options and examples.
`,
  );
  return program;
}

/** `vredact help [topic | command...]`: a topic's text, or a command's help, on stdout with exit 0. */
function addHelpCommand(program: Command): void {
  const help = program
    .command('help')
    .argument('[topic...]', `a topic (${Object.keys(HELP_TOPICS).join(', ')}) or a command`)
    .description('show a help topic, or the help of a command');
  addExamples(help, [
    ['vredact help exit-codes', 'what each exit code means, for scripts and cron'],
    ['vredact help jobs list', "a command's help, as vredact jobs list --help"],
  ]).action((words: string[]) => {
    const [first] = words;
    if (first === undefined) {
      program.outputHelp();
      return;
    }
    const topic = HELP_TOPICS[first];
    if (topic && words.length === 1) {
      process.stdout.write(topic.text);
      return;
    }
    let command: Command = program;
    for (const word of words) {
      const next = command.commands.find((sub) => sub.name() === word || sub.aliases().includes(word));
      if (!next)
        throw new UsageError(
          `no help topic or command "${words.join(' ')}"`,
          helpWordsHint(command, words.slice(0, words.indexOf(word)), word),
        );
      command = next;
    }
    command.outputHelp();
  });
}

/**
 * What may follow the words of `help` that were found (`found`): from the top, the topics and
 * commands. The one `unknown` obviously meant (`exit`, `env`, `Redact`: a beginning or letter case,
 * the rule of every value refused) is suggested first, never taken.
 */
function helpWordsHint(command: Command, found: string[], unknown: string): string {
  const names = command.commands.map((sub) => sub.name());
  const topics = command.parent ? [] : Object.keys(HELP_TOPICS);
  const meant = nearestChoice(unknown, [...topics, ...names]);
  const suggestion =
    meant === undefined ? '' : `did you mean \`vredact help ${[...found, meant].join(' ')}\`? `;
  if (!command.parent) return `${suggestion}topics: ${topics.join(', ')}; commands: ${names.join(', ')}`;
  const path = commandPath(command);
  return names.length > 0
    ? `${suggestion}the subcommands of ${path}: ${names.join(', ')}`
    : `${path} has no subcommands: see \`vredact help ${path.replace(/^vredact /, '')}\``;
}

function commandPath(command: Command): string {
  return command.parent ? `${commandPath(command.parent)} ${command.name()}` : command.name();
}

function addCompletionCommand(program: Command): void {
  program
    .command('completion')
    .addArgument(new Argument('<shell>', 'the shell that will load the script').choices(SHELLS))
    .description('print a shell completion script')
    .addHelpText(
      'after',
      `
Examples:
  # bash: now, or for every new shell
  $ source <(vredact completion bash)
  $ vredact completion bash > ~/.local/share/bash-completion/completions/vredact
  # zsh (after compinit in ~/.zshrc)
  $ source <(vredact completion zsh)
  # fish
  $ vredact completion fish > ~/.config/fish/completions/vredact.fish
`,
    )
    .action(async (shell: string) => {
      const { completionScript } = await import('../commands/completion/completion.js');
      process.stdout.write(completionScript(program, shell));
    });
}
