import type { Writable } from 'node:stream';
import { CliError, ExitCode, messageOf } from './errors.js';
import { escapeControls } from './output/sanitize.js';
import { redactSecrets } from './settings/mask.js';

/**
 * Prints an error as one line saying what happened and, where known, one saying what to do next;
 * the stack only with --verbose. Messages may carry the service's text: secrets are masked and
 * control characters escaped, so one line stays one line and no escape sequence reaches the
 * terminal. Returns the exit code the error stands for.
 */
export function reportError(
  error: unknown,
  stderr: Writable,
  options: { verbose: boolean; secrets: ReadonlyArray<string | undefined> },
): number {
  const clean = (text: string) => redactSecrets(text, options.secrets);
  const line = (text: string) => `${escapeControls(clean(text))}\n`;
  const stack = (text: string) => `${clean(text).split('\n').map(escapeControls).join('\n')}\n`;
  if (error instanceof CliError) {
    stderr.write(line(`error: ${error.message}`));
    if (error.hint) stderr.write(line(`hint: ${error.hint}`));
    if (options.verbose && error.stack) stderr.write(stack(error.stack));
    return error.exitCode;
  }
  const message = messageOf(error);
  stderr.write(line(`error: ${message}`));
  if (options.verbose && error instanceof Error && error.stack) stderr.write(stack(error.stack));
  else stderr.write('hint: run again with --verbose for details\n');
  return ExitCode.partial;
}
