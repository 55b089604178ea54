import { Command, CommanderError, Option } from 'commander';
import type { Context } from './context.js';
import { ExitCode } from './errors.js';
import { reportError } from './report-error.js';
import type { CommandFlags } from './settings/settings.js';
import { VOICE_CHOICES } from './settings/voice.js';
import { VERSION } from './version.js';

function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

type Runner = (ctx: Context, args: string[], options: Record<string, unknown>) => Promise<number>;

/** Options every command takes, added to each leaf so they work before or after the command name. */
function withGlobalOptions(command: Command): Command {
  return command
    .option('--base-url <url>', 'service URL (env VREDACT_BASE_URL)')
    .option('--token <token>', 'usage token (env VREDACT_TOKEN; visible in ps, prefer `vredact login`)')
    .option('--json', 'machine-readable output on stdout')
    .option('-q, --quiet', 'only errors and warnings on stderr')
    .option('-v, --verbose', 'log requests and show stack traces')
    .option('--no-color', 'no colours (also NO_COLOR)')
    .option('--timeout <seconds>', 'timeout of one request, in seconds (default 300)')
    .option('--max-retries <n>', 'retries of a failed request (default 4)')
    .option('--allow-insecure-http', 'allow an http:// service URL that is not loopback');
}

function voiceOptions(command: Command): Command {
  for (const [name, choices] of Object.entries(VOICE_CHOICES)) {
    command.addOption(new Option(`--${name} <${name}>`, `target ${name} (${choices.join(', ')})`));
  }
  return command.option('--avatar <avatar>', 'target avatar (overrides --age)');
}

/** Wraps a lazily loaded command: builds the context, runs it, turns errors into messages and exit codes. */
function action(load: () => Promise<Runner>, uses: { userSettings: boolean } = { userSettings: true }) {
  return async (...received: unknown[]) => {
    const command = received[received.length - 1] as Command;
    const flags = command.optsWithGlobals() as CommandFlags & Record<string, unknown>;
    const args = (command.processedArgs as unknown[]).flatMap((arg) =>
      arg === undefined ? [] : Array.isArray(arg) ? arg.map(String) : [String(arg)],
    );
    let ctx: Context | undefined;
    try {
      const [{ createContext }, run] = await Promise.all([import('./context.js'), load()]);
      if (uses.userSettings) {
        ctx = await createContext(flags);
      } else {
        // The sandbox is a server of its own: the user's settings (a bad VREDACT_CONCURRENCY, a broken
        // config file) must not stop it, and its `--token` list is not the client's token.
        const { memoryConfigStore } = await import('./settings/config-store.js');
        ctx = await createContext(
          { quiet: flags.quiet, verbose: flags.verbose },
          { env: {}, config: memoryConfigStore() },
        );
      }
      process.exitCode = await run(ctx, args, flags);
    } catch (error) {
      process.exitCode = reportError(error, process.stderr, {
        verbose: flags.verbose === true,
        secrets: [
          typeof flags.token === 'string' ? flags.token : undefined,
          process.env.VREDACT_TOKEN,
          ctx?.settings.token,
        ],
      });
    } finally {
      await ctx?.close();
    }
  };
}

export function buildProgram(): Command {
  const program = new Command('vredact')
    .description('Batch voice redaction with the Voice Redaction Service')
    .version(VERSION, '-V, --version')
    .showHelpAfterError('(run with --help for usage)')
    // Set before the subcommands are added: they inherit it, so their parse errors exit 2 too.
    .exitOverride();

  withGlobalOptions(
    program
      .command('login')
      .description('store a usage token after checking it with the service')
      .option('--token-stdin', 'read the token from standard input'),
  ).action(action(async () => (await import('./commands/auth/login.js')).runLogin));

  withGlobalOptions(program.command('logout').description('remove the stored token')).action(
    action(async () => (await import('./commands/auth/logout.js')).runLogout),
  );

  const config = program.command('config').description('read and write settings');
  withGlobalOptions(config.command('set').argument('<key>').argument('<value>', '"-" reads standard input'))
    .description('set a setting')
    .action(action(async () => (await import('./commands/config/config.js')).runConfigSet));
  withGlobalOptions(config.command('get').argument('<key>'))
    .description('print a setting (a token masked)')
    .action(action(async () => (await import('./commands/config/config.js')).runConfigGet));
  withGlobalOptions(config.command('unset').argument('<key>'))
    .description('remove a setting')
    .action(action(async () => (await import('./commands/config/config.js')).runConfigUnset));
  withGlobalOptions(config.command('list'))
    .description('print every setting and where it comes from')
    .action(action(async () => (await import('./commands/config/config.js')).runConfigList));
  withGlobalOptions(config.command('path'))
    .description('print where the config file is')
    .action(action(async () => (await import('./commands/config/config.js')).runConfigPath));

  const jobs = program.command('jobs').description('list, create and inspect jobs');
  withGlobalOptions(jobs.command('list'))
    .description('list the jobs of your token, newest first')
    .action(action(async () => (await import('./commands/jobs/list.js')).runJobsList));
  withGlobalOptions(jobs.command('create'))
    .description('create a new job')
    .action(action(async () => (await import('./commands/jobs/create.js')).runJobsCreate));
  withGlobalOptions(jobs.command('content').argument('<jobId>'))
    .description("list a job's files")
    .action(action(async () => (await import('./commands/jobs/content.js')).runJobsContent));

  withGlobalOptions(
    program
      .command('download')
      .argument('<jobId>')
      .argument('[fileName...]', "files to fetch (default: all of the job's files)")
      .description("download a job's result files")
      .option('-o, --out-dir <dir>', 'where to write (default: the current folder)')
      .option('--overwrite', 'replace files that already exist'),
  ).action(action(async () => (await import('./commands/download/download.js')).runDownload));

  withGlobalOptions(
    voiceOptions(
      program
        .command('redact')
        .argument('[inputs...]', 'files, folders and glob patterns')
        .description('redact the voices in WAV and MP3 recordings')
        .option('--files-from <file>', 'read more inputs from a file, one per line ("-" for stdin)')
        .option('-c, --concurrency <n>', 'files in flight at once (default 4)')
        .option('-o, --out-dir <dir>', 'where redacted WAV files go (default ./redacted)')
        .option('--dry-run', 'check and plan only; send nothing')
        .option('--overwrite', 'redo files whose output already exists')
        .option('--no-wait', 'submit, but do not wait for asynchronous jobs')
        .option('--wait-timeout <duration>', 'how long to wait for asynchronous jobs (default 2h)')
        .option('--shard <i/n>', "take only this machine's share of the inputs (env VREDACT_SHARD)")
        .option(
          '--duration-tolerance <tolerance>',
          "how far a result's duration may be from its input's (default max(2s,5%))",
        )
        .option('--max-size <bytes>', 'local size limit (default 10 MiB; 500k, 10MiB, 5MB accepted)')
        .option('--max-duration <seconds>', 'local duration limit (default 3600)'),
    ),
  ).action(action(async () => (await import('./commands/redact/redact.js')).runRedact));

  program
    .command('sandbox')
    .description('run a local stand-in of the service, for trying vredact and testing scripts')
    .option('--port <port>', 'port of the API (0 picks a free one)', '8787')
    .option('--host <host>', 'loopback address to listen on', '127.0.0.1')
    .option('--files-port <port>', 'port of the signed-URL file server (default: a free one)', '0')
    .option(
      '--token <token>',
      'an accepted token (repeatable; one is generated when none is given)',
      collect,
      [],
    )
    .option('--sync-limit <seconds>', 'audio up to this length is answered synchronously', '30')
    .option('--speed <factor>', 'how much faster than real time asynchronous jobs finish', '1')
    .option('--data-dir <dir>', 'keep jobs and results here, across restarts')
    .option('--fail-rate <rate>', 'share of requests answered with a 503 (0 to 1)', '0')
    .option('--latency <ms>', 'delay added to every answer, in milliseconds', '0')
    .option('--seed <n>', 'seed of the voice change and of fault injection', '1')
    .option('-q, --quiet', 'do not log requests')
    .option('-v, --verbose', 'log more')
    .action(
      action(async () => (await import('./commands/sandbox/sandbox.js')).runSandbox, { userSettings: false }),
    );

  return program;
}

export async function main(argv: string[]): Promise<void> {
  const program = buildProgram();
  try {
    await program.parseAsync(argv);
  } catch (error) {
    if (error instanceof CommanderError) {
      // Help and version are not errors; every other parsing failure is a usage error.
      process.exitCode = error.exitCode === 0 ? 0 : ExitCode.usage;
      return;
    }
    throw error;
  }
}
