/**
 * The one shape of a value refused (an option's, or a positional argument's with a fixed set of
 * values): one line naming what was refused, the value given and what it takes, then a hint. Where a
 * number went past an end of its range the hint gives that end, and where a choice was obviously
 * meant it gives that one; it always names the command's --help, which only the command's runner
 * knows (src/cli/action.ts fills it in; src/cli/parse-errors.ts for an argument commander reads).
 */
import { UsageError } from '../errors.js';

export class BadValueError extends UsageError {
  override name = 'BadValueError';
  constructor(
    message: string,
    /** The allowed value nearest to the one given, as the option is written (`64`, `7d`). */
    readonly nearest?: string,
    help = "the command's --help",
  ) {
    super(message, nearestHint(nearest, help));
  }
}

/**
 * The refusal of `value` where only `allowed` are taken; `what` names it as the user gave it
 * (`--gender`, `age` in `config set`, `<shell>`).
 */
export function choiceError(
  what: string,
  value: string,
  allowed: readonly string[],
  help?: string,
): BadValueError {
  return new BadValueError(
    `${what} must be one of ${allowed.join(', ')} (got "${value}")`,
    nearestChoice(value, allowed),
    help,
  );
}

/** The hint of a BadValueError, with `help` as where the option's rules are shown. */
export function nearestHint(nearest: string | undefined, help: string): string {
  return `${nearest === undefined ? '' : `the nearest allowed value is ${nearest}; `}see ${help}`;
}

/** The end of [min, max] nearest `text` when it is a number past one; else undefined. */
export function nearestEnd(text: string, min: number, max: number): string | undefined {
  const n = /^\s*-?[0-9]+(\.[0-9]+)?\s*$/.test(text) ? Number(text) : Number.NaN;
  if (n < min) return String(min);
  if (n > max) return String(max);
  return undefined;
}

/**
 * The one allowed value `text` obviously meant: the same but for letter case (`F`: f), or the one
 * that begins with it (`senior`: senior-adult, `OPP`: opposite); undefined where none or several do.
 */
export function nearestChoice(text: string, allowed: readonly string[]): string | undefined {
  const typed = text.toLowerCase();
  if (typed === '') return undefined;
  const same = allowed.find((value) => value.toLowerCase() === typed);
  if (same !== undefined) return same;
  const begun = allowed.filter((value) => value.toLowerCase().startsWith(typed));
  return begun.length === 1 ? begun[0] : undefined;
}
