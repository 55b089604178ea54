import type { Writable } from 'node:stream';
import { CliError, ExitCode } from './errors.js';
import { redactSecrets } from './settings/mask.js';

/**
 * Prints an error as one line saying what happened and, where known, one saying what to do next;
 * the stack only with --verbose. Returns the exit code the error stands for.
 */
export function reportError(
  error: unknown,
  stderr: Writable,
  options: { verbose: boolean; secrets: ReadonlyArray<string | undefined> },
): number {
  const clean = (text: string) => redactSecrets(text, options.secrets);
  if (error instanceof CliError) {
    stderr.write(clean(`error: ${error.message}\n`));
    if (error.hint) stderr.write(clean(`hint: ${error.hint}\n`));
    if (options.verbose && error.stack) stderr.write(clean(`${error.stack}\n`));
    return error.exitCode;
  }
  const message = error instanceof Error ? error.message : String(error);
  stderr.write(clean(`error: ${message}\n`));
  if (options.verbose && error instanceof Error && error.stack) stderr.write(clean(`${error.stack}\n`));
  else stderr.write('hint: run again with --verbose for details\n');
  return ExitCode.partial;
}
