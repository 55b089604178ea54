import { CommanderError } from 'commander';
import { buildProgram } from './cli/program.js';
import { CliError, ExitCode } from './errors.js';
import { reportError } from './report-error.js';

export { buildProgram };

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
    // Commands report their own errors (src/cli/action.ts); this is for help and completion.
    if (error instanceof CliError) {
      process.exitCode = reportError(error, process.stderr, { verbose: false, secrets: [] });
      return;
    }
    throw error;
  }
}
