import { CommanderError } from 'commander';
import { moveGlobalFlags } from './cli/global-flags.js';
import { buildProgram } from './cli/program.js';
import { CliError, ExitCode } from './errors.js';
import { releaseHungUpTerminalAtExit } from './output/hung-up-terminal.js';
import { watchStdio } from './output/stdout-failure.js';
import { reportError } from './report-error.js';
import { obeyHeldSignals } from './signals.js';

export { buildProgram };

export async function main(argv: string[]): Promise<void> {
  const program = buildProgram();
  // Help and completion text is written without a command's streams: a reader that has gone
  // (`vredact --help | true`) ends it quietly, and a full stdout says so and exits 1.
  watchStdio();
  releaseHungUpTerminalAtExit();
  try {
    const [node = 'node', script = 'vredact', ...words] = argv;
    await program.parseAsync([node, script, ...moveGlobalFlags(program, words)]);
  } catch (error) {
    if (error instanceof CommanderError) {
      // Help and version: parse errors come as usage errors (src/cli/parse-errors.ts).
      process.exitCode = error.exitCode === 0 ? 0 : ExitCode.usage;
      return;
    }
    // Commands report their own errors (src/cli/action.ts); this is for parse errors, help and completion.
    if (error instanceof CliError) {
      process.exitCode = reportError(error, process.stderr, { verbose: false, secrets: [] });
      return;
    }
    throw error;
  } finally {
    // Help, a usage error, a completion script: a signal held while the modules loaded ends it now.
    obeyHeldSignals();
  }
}
