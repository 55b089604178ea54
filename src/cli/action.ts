import type { Command } from 'commander';
import type { Context } from '../context.js';
import { ExitCode, UsageError } from '../errors.js';
import { reportError } from '../report-error.js';
import { obeyHeldSignals } from '../signals.js';
import { BadValueError, nearestHint } from '../settings/bad-value.js';
import type { CommandFlags } from '../settings/settings.js';
import { commandPath } from './parse-errors.js';

export type Runner = (ctx: Context, args: string[], flags: Record<string, unknown>) => Promise<number>;

/**
 * Wraps a lazily loaded command: builds the context, runs it, turns errors into messages and exit codes.
 * `uses.signals`: the command takes the interrupt signals over (src/signals.ts); any other command is
 * ended at once by a signal that came while the modules loaded. `uses.configValues: false`: the
 * config file is not read (`config path` must answer when it is broken). `uses.rewritesConfig`: the
 * command writes the config file 0600, so a config file others can read is warned about after it,
 * if it still is (a value refused, nothing written), rather than before it as noise.
 */
export function action(
  load: () => Promise<Runner>,
  uses: { userSettings?: boolean; configValues?: boolean; signals?: boolean; rewritesConfig?: boolean } = {},
) {
  const { userSettings = true, configValues = true, signals = false, rewritesConfig = false } = uses;
  return async (...received: unknown[]) => {
    if (!signals) obeyHeldSignals();
    const command = received[received.length - 1] as Command;
    const flags = command.optsWithGlobals() as CommandFlags & Record<string, unknown>;
    const args = (command.processedArgs as unknown[]).flatMap((arg) =>
      arg === undefined ? [] : Array.isArray(arg) ? arg.map(String) : [String(arg)],
    );
    let ctx: Context | undefined;
    let warnAtEnd: (() => void) | undefined;
    process.once('beforeExit', stalled);
    try {
      const [{ createContext, warnIfTokenExposed }, run] = await Promise.all([
        import('../context.js'),
        load(),
      ]);
      if (userSettings) {
        const config = configValues
          ? undefined
          : await (await import('../settings/config-store.js')).unreadConfigStore(process.env);
        ctx = await createContext(flags, { config, rewritesConfig });
        const { config: store, log } = ctx;
        if (rewritesConfig) warnAtEnd = () => warnIfTokenExposed(store, log);
        if (ctx.settings.sources.token === 'flag')
          ctx.log.warn(
            '--token is visible to other users of this machine (ps); prefer `vredact login` or VREDACT_TOKEN',
          );
      } else {
        // The sandbox is a server of its own: the user's settings (a bad VREDACT_CONCURRENCY, a broken
        // config file) must not stop it, and its `--token` list is not the client's token. The global
        // flags are read as every command reads them.
        const { memoryConfigStore } = await import('../settings/config-store.js');
        const { json, quiet, verbose, color, timeout, maxRetries } = flags;
        ctx = await createContext(
          { json, quiet, verbose, color, timeout, maxRetries },
          { env: {}, config: memoryConfigStore() },
        );
      }
      process.exitCode = await run(ctx, args, flags);
    } catch (error) {
      process.exitCode = reportError(withCommandHelp(error, command), process.stderr, {
        verbose: flags.verbose === true,
        secrets: [
          typeof flags.token === 'string' ? flags.token : undefined,
          process.env.VREDACT_TOKEN,
          ctx?.settings.token,
        ],
      });
    } finally {
      warnAtEnd?.();
      process.off('beforeExit', stalled);
      await ctx?.close();
    }
  };
}

/** A refused option value's hint names the help of the command it was given to, as a parse error's does. */
function withCommandHelp(error: unknown, command: Command): unknown {
  if (!(error instanceof BadValueError)) return error;
  return new UsageError(error.message, nearestHint(error.nearest, `\`${commandPath(command)} --help\``));
}

/**
 * Node.js exits (with code 0) when nothing is left to wait on, even while a command still awaits a
 * promise that nothing will settle: a run stuck that way would look done to cron. It says so and
 * exits 1 instead.
 */
function stalled(): void {
  process.stderr.write(
    'error: vredact stopped before its work was finished, with nothing left to wait on (a bug in vredact)\n' +
      'hint: run the same command again (nothing done is sent twice), and report this with its --verbose output\n',
  );
  process.exitCode = ExitCode.partial;
}
