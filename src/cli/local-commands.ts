/** Commands that stay on this machine: logout, config and the sandbox. */
import { Argument, type Command } from 'commander';
import { CONFIG_KEYS } from '../settings/config-keys.js';
import { action } from './action.js';
import {
  addExamples,
  addInsecureHttpOption,
  addServiceIdentityOptions,
  option,
  pathOption,
} from './option.js';

function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

const configModule = () => import('../commands/config/config.js');

export function addLogoutCommand(program: Command): void {
  const logout = program.command('logout').description('remove the stored token from the config file');
  addExamples(logout, [
    ['vredact logout', 'the token is removed; VREDACT_TOKEN, if set, still applies'],
  ]).action(
    action(async () => (await import('../commands/auth/logout.js')).runLogout, { rewritesConfig: true }),
  );
}

export function addConfigCommands(program: Command): void {
  const config = program
    .command('config')
    .description('read and write settings (precedence: flag, environment, config file, default)')
    .helpCommand(false);
  const keyArgument = () => new Argument('<key>', 'a setting').choices(CONFIG_KEYS);
  addExamples(config, [
    ['vredact config set base-url https://redaction.example.com', 'where the service is'],
    ['vredact config list', 'every setting, and where its value comes from'],
  ]);

  const set = config
    .command('set')
    .description('check a value and write it to the config file')
    .addArgument(keyArgument())
    .argument('<value>', '"-" reads it from standard input (for the token)');
  addInsecureHttpOption(set);
  addExamples(set, [
    ['vredact config set base-url https://redaction.example.com', 'https, or http on loopback'],
    ['vredact config set concurrency 8', 'files in flight at once'],
    ['vredact config set gender opposite', 'a default target voice'],
    ['pass show vredact | vredact config set token -', 'the token from standard input'],
  ]).action(action(async () => (await configModule()).runConfigSet, { rewritesConfig: true }));

  // get and list show the effective value, so they take the flags that can override it.
  const get = config
    .command('get')
    .description('print one setting (a token masked)')
    .addArgument(keyArgument());
  addExamples(addServiceIdentityOptions(get), [
    ['vredact config get base-url', 'its effective value'],
    ['vredact config get token --json', 'masked, with where it comes from'],
  ]).action(action(async () => (await configModule()).runConfigGet));

  const unset = config
    .command('unset')
    .description('remove a setting from the config file')
    .addArgument(keyArgument());
  addExamples(unset, [['vredact config unset gender', "back to the service's default"]]).action(
    action(async () => (await configModule()).runConfigUnset, { rewritesConfig: true }),
  );

  const list = config.command('list').description('print every setting and where it comes from');
  addExamples(addServiceIdentityOptions(list), [
    ['vredact config list', 'key, value (a token masked) and source: flag, env, config or default'],
  ]).action(action(async () => (await configModule()).runConfigList));

  addExamples(config.command('path').description('print where the config file is'), [
    ['vredact config path', 'moved by VREDACT_CONFIG_DIR'],
  ]).action(action(async () => (await configModule()).runConfigPath, { configValues: false }));
}

export function addSandboxCommand(program: Command): void {
  const sandbox = program
    .command('sandbox')
    .description('run a local stand-in of the service, for trying vredact and testing scripts')
    .option('--port <port>', 'port of the API (0 picks a free one)', '8787')
    .option('--host <host>', 'loopback address to listen on (127.0.0.0/8, localhost, ::1)', '127.0.0.1')
    .addOption(
      option('--files-port <port>', 'port of the signed-URL file server')
        .default('0')
        .documentDefault('a free one'),
    )
    .addOption(
      option('--token <token>', 'an accepted token, repeatable')
        .argParser(collect)
        .default([])
        .documentDefault('one vr_sandbox_… is generated'),
    )
    .option('--sync-limit <seconds>', 'audio up to this length is answered synchronously', '30')
    .option('--speed <factor>', 'how much faster than real time asynchronous jobs finish', '1')
    .addOption(
      pathOption(
        '--data-dir <dir>',
        'keep jobs and results here, across restarts (default: a temporary folder)',
      ),
    )
    .option('--fail-rate <rate>', 'share of requests answered with a 503, 0 to 1', '0')
    .option('--latency <ms>', 'delay added to every answer, in milliseconds', '0')
    .addOption(
      option(
        '--rate-limit <n/period>',
        'answer 429 with Retry-After beyond n requests per period and token (10/1s)',
      ).documentDefault('none'),
    )
    .option('--seed <n>', 'seed of the voice change and of fault injection', '1')
    // Global flags, described as they apply to a server (src/cli/every-command.ts adds the others).
    .option('--json', 'print {"base_url","token"} as one JSON line instead of the export lines')
    .option('-q, --quiet', 'do not log requests')
    .option('-v, --verbose', 'log more');
  addExamples(sandbox, [
    [
      'vredact sandbox --port 8787 > sandbox.env 2> sandbox.log &',
      'serve in the background; the file gets two export lines, the log its own file',
    ],
    ['. ./sandbox.env && vredact redact fixtures/', 'point vredact at it and redact'],
    ['vredact sandbox --port 0 --fail-rate 0.2 --rate-limit 10/1s', 'rehearse a flaky, throttled service'],
    [
      'vredact sandbox --port 0 --json > sandbox.json 2> sandbox.log &',
      'for a script: jq -r .base_url sandbox.json',
    ],
  ]).action(
    action(async () => (await import('../commands/sandbox/sandbox.js')).runSandbox, {
      userSettings: false,
      signals: true,
    }),
  );
}
