import type { Command } from 'commander';
import type { Context } from '../context.js';
import { reportError } from '../report-error.js';
import type { CommandFlags } from '../settings/settings.js';

export type Runner = (ctx: Context, args: string[], flags: Record<string, unknown>) => Promise<number>;

/** Wraps a lazily loaded command: builds the context, runs it, turns errors into messages and exit codes. */
export function action(
  load: () => Promise<Runner>,
  uses: { userSettings: boolean } = { userSettings: true },
) {
  return async (...received: unknown[]) => {
    const command = received[received.length - 1] as Command;
    const flags = command.optsWithGlobals() as CommandFlags & Record<string, unknown>;
    const args = (command.processedArgs as unknown[]).flatMap((arg) =>
      arg === undefined ? [] : Array.isArray(arg) ? arg.map(String) : [String(arg)],
    );
    let ctx: Context | undefined;
    try {
      const [{ createContext }, run] = await Promise.all([import('../context.js'), load()]);
      if (uses.userSettings) {
        ctx = await createContext(flags);
      } else {
        // The sandbox is a server of its own: the user's settings (a bad VREDACT_CONCURRENCY, a broken
        // config file) must not stop it, and its `--token` list is not the client's token.
        const { memoryConfigStore } = await import('../settings/config-store.js');
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
