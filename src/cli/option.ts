/**
 * The options of the command tree and how help shows them. Defaults, environment variables and
 * config keys that belong to the settings are shown in help but never applied by commander:
 * settings resolves flag > environment > config file > default in one place
 * (src/settings/settings.ts), and `config list` must see a flag only when the user typed one.
 */
import type { Argument, Command, Option } from 'commander';
import { Option as OptionClass } from 'commander';
import { expandHome } from '../settings/home-path.js';
import { VOICE_CHOICES } from '../settings/voice.js';

/**
 * An option whose default, environment variable and config key are documented, not applied. Every
 * option that takes a value shows a default in help, "none" where there is none (the contract; a
 * test walks the tree): a switch is off unless given.
 */
export class CliOption extends OptionClass {
  shownDefault: string | undefined;
  shownEnv: string | undefined;
  shownConfigKey: string | undefined;

  /** The default as help shows it; settings applies it, so commander never sees a value. */
  documentDefault(text: string): this {
    this.shownDefault = text;
    return this;
  }

  /** The environment variable settings reads for this option (commander's `.env()` would read it itself). */
  documentEnv(name: string): this {
    this.shownEnv = name;
    return this;
  }

  documentConfigKey(key: string): this {
    this.shownConfigKey = key;
    return this;
  }

  /**
   * The allowed values, for help and completion: settings checks them (src/settings/voice.ts), with
   * the nearest one in its refusal, where commander's `.choices()` would refuse with its own words.
   */
  documentChoices(values: readonly string[]): this {
    this.argChoices = [...values];
    return this;
  }
}

export function option(flags: string, description: string): CliOption {
  return new CliOption(flags, description);
}

/**
 * An option whose value is a path of this machine: a `~` the shell left alone (`--out-dir=~/x`,
 * quoted) is the home folder, as it would have been after a space (src/settings/home-path.ts).
 */
export function pathOption(flags: string, description: string): CliOption {
  return option(flags, description).argParser((value: string) => expandHome(value));
}

/** An option's help line: its description, then allowed values, default, environment variable and config key. */
export function describeOption(opt: Option): string {
  const extra: string[] = [];
  if (opt.argChoices) extra.push(`one of: ${opt.argChoices.join(', ')}`);
  const shown = opt instanceof CliOption ? opt : undefined;
  const applied =
    opt.defaultValue === undefined ||
    opt.negate ||
    (Array.isArray(opt.defaultValue) && opt.defaultValue.length === 0)
      ? undefined
      : (opt.defaultValueDescription ?? String(opt.defaultValue));
  const def = shown?.shownDefault ?? applied;
  if (def !== undefined) extra.push(`default: ${def}`);
  if (shown?.shownEnv) extra.push(`env: ${shown.shownEnv}`);
  if (shown?.shownConfigKey) extra.push(`config: ${shown.shownConfigKey}`);
  return extra.length > 0 ? `${opt.description} (${extra.join('; ')})` : opt.description;
}

const SERVICE_GROUP = 'Service options:';
const OUTPUT_GROUP = 'Output options:';

/** An argument's help line: its description, then allowed values, in the same words as options. */
export function describeArgument(argument: Argument): string {
  const extra: string[] = [];
  if (argument.argChoices) extra.push(`one of: ${argument.argChoices.join(', ')}`);
  if (argument.defaultValue !== undefined) {
    extra.push(`default: ${argument.defaultValueDescription ?? String(argument.defaultValue)}`);
  }
  return extra.length > 0 ? `${argument.description} (${extra.join('; ')})` : argument.description;
}

/**
 * The contract's six global flags, fresh for one command: the tree gives them to every command
 * (src/cli/every-command.ts). A command that sends no request takes `--timeout` and `--max-retries`
 * without effect, so that a script or an alias that adds them to every command works.
 */
export function globalOptions(): CliOption[] {
  return [
    option('--json', 'machine-readable JSON on stdout').helpGroup(OUTPUT_GROUP),
    option('-q, --quiet', 'only errors and warnings on stderr').helpGroup(OUTPUT_GROUP),
    option('-v, --verbose', 'log requests and show stack traces').helpGroup(OUTPUT_GROUP),
    option('--no-color', 'no colours').documentEnv('NO_COLOR').helpGroup(OUTPUT_GROUP),
    option('--timeout <seconds>', 'timeout of one request, in seconds')
      .documentDefault('300')
      .helpGroup(SERVICE_GROUP),
    option('--max-retries <n>', 'retries of a failed request, 0 to 20')
      .documentDefault('4')
      .helpGroup(SERVICE_GROUP),
  ];
}

/** Where the service is and who we are: commands that read or show these settings. */
export function addServiceIdentityOptions(command: Command): Command {
  return command
    .addOption(
      option('--base-url <url>', 'service URL, https://…')
        .documentDefault('none')
        .documentEnv('VREDACT_BASE_URL')
        .documentConfigKey('base-url')
        .helpGroup(SERVICE_GROUP),
    )
    .addOption(
      option('--token <token>', 'usage token (visible in ps: prefer `vredact login`)')
        .documentDefault('none')
        .documentEnv('VREDACT_TOKEN')
        .documentConfigKey('token')
        .helpGroup(SERVICE_GROUP),
    );
}

export function addInsecureHttpOption(command: Command): Command {
  return command.addOption(
    option('--allow-insecure-http', 'allow an http:// service URL that is not loopback')
      .documentEnv('VREDACT_ALLOW_INSECURE_HTTP=1')
      .helpGroup(SERVICE_GROUP),
  );
}

/** Commands that talk to the service: URL, token, throttling (timeouts and retries are global flags). */
export function addNetworkOptions(command: Command): Command {
  addServiceIdentityOptions(command).addOption(
    option('--max-throttle-wait <duration>', 'how long a file may stay throttled (429) before it fails')
      .documentDefault('30m')
      .documentEnv('VREDACT_MAX_THROTTLE_WAIT')
      .helpGroup(SERVICE_GROUP),
  );
  return addInsecureHttpOption(command);
}

export function addConcurrencyOption(command: Command, what: string): Command {
  return command.addOption(
    option('-c, --concurrency <n>', `${what} at once, 1 to 64`)
      .documentDefault('4')
      .documentEnv('VREDACT_CONCURRENCY')
      .documentConfigKey('concurrency'),
  );
}

/** `--progress`/`--no-progress` (no default: undefined means "decide from the terminals") and `--stats`. */
export function addProgressOptions(command: Command): Command {
  return command
    .addOption(
      option('--progress', 'show the live progress line (default: when stdout and stderr are terminals)'),
    )
    .addOption(option('--no-progress', 'never show the live progress line'))
    .addOption(
      option(
        '--stats <interval>',
        'print a plain progress line on stderr every interval: 30s, 1m, …',
      ).documentDefault('none'),
    );
}

/** The target-voice fields of a redaction request. */
export function addVoiceOptions(command: Command): Command {
  const descriptions: Record<keyof typeof VOICE_CHOICES, string> = {
    age: 'target age',
    gender: 'target gender; f and m are fixed voices',
    language: 'language of the speech',
    model: 'service model: mini is faster, advanced better',
    emotion: 'target emotion',
  };
  for (const [name, choices] of Object.entries(VOICE_CHOICES)) {
    command.addOption(
      option(`--${name} <${name}>`, descriptions[name as keyof typeof VOICE_CHOICES])
        .documentChoices(choices)
        .documentDefault("the service's")
        .documentConfigKey(name)
        .helpGroup('Target voice:'),
    );
  }
  return command.addOption(
    option('--avatar <avatar>', 'a named target voice (overrides --age and --gender)')
      .documentDefault("the service's")
      .helpGroup('Target voice:'),
  );
}

/** Examples shown after a command's options: `[command line, what it does]`. */
export function addExamples(command: Command, examples: ReadonlyArray<readonly [string, string]>): Command {
  const lines = examples.flatMap(([line, what]) => [`  # ${what}`, `  $ ${line}`]);
  return command.addHelpText('after', `\nExamples:\n${lines.join('\n')}\n`);
}
