/** Exit codes of the contract; scripts act on them. */
export const ExitCode = {
  ok: 0,
  partial: 1,
  usage: 2,
  auth: 3,
  interrupted: 130,
} as const;
export type ExitCodeValue = (typeof ExitCode)[keyof typeof ExitCode];

/** An error the user can act on: printed as one line, never with a stack unless --verbose. */
export class CliError extends Error {
  override name = 'CliError';
  constructor(
    message: string,
    readonly exitCode: number = ExitCode.partial,
    readonly hint?: string,
  ) {
    super(message);
  }
}

/** The message of anything thrown (a non-Error too). */
export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * An error's message and, where it has one, what to do next, as one line: for a failure told beside
 * others (a file of a download), where no `hint:` line of its own can follow.
 */
export function messageWithHint(error: unknown): string {
  const message = messageOf(error);
  return error instanceof CliError && error.hint ? `${message}; ${error.hint}` : message;
}

/** Bad flags, bad settings, missing configuration: nothing was sent. */
export class UsageError extends CliError {
  override name = 'UsageError';
  constructor(message: string, hint?: string) {
    super(message, ExitCode.usage, hint);
  }
}
