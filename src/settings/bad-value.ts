/**
 * The one shape of a value refused (an option's, or a positional argument's with a fixed set of
 * values): one line naming what was refused, the value given and what it takes, then a hint. Where a
 * number went past an end of its range the hint gives that end, and where a choice was obviously
 * meant it gives that one; it always names the command's --help, which only the command's runner
 * knows (src/cli/action.ts fills it in; src/cli/parse-errors.ts for an argument commander reads).
 */
import leven from 'leven';
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
 * The one allowed value `text` obviously meant: the same but for letter case (`F`: f), the one that
 * begins with it (`senior`: senior-adult, `OPP`: opposite), or the one a slip of a key or two away
 * (`exit-cods`: exit-codes, `advnced`: advanced); undefined where none or several do.
 */
export function nearestChoice(text: string, allowed: readonly string[]): string | undefined {
  const typed = text.toLowerCase();
  if (typed === '') return undefined;
  const same = allowed.find((value) => value.toLowerCase() === typed);
  if (same !== undefined) return same;
  const begun = allowed.filter((value) => value.toLowerCase().startsWith(typed));
  if (begun.length > 0) return begun.length === 1 ? begun[0] : undefined;
  return misspelt(typed, allowed);
}

/**
 * The one value within a slip of `typed` (a letter missed, added or changed; two in a word of 8 or
 * more): a word of 1 or 2 letters is too short to tell a slip from another word (`nl`: en or de?),
 * and a tie between two is no obvious choice.
 */
function misspelt(typed: string, allowed: readonly string[]): string | undefined {
  if (typed.length < 3) return undefined;
  const slips = typed.length >= 8 ? 2 : 1;
  let best: string | undefined;
  let bestDistance = slips + 1;
  let tied = false;
  for (const value of allowed) {
    const distance = leven(typed, value.toLowerCase());
    if (distance < bestDistance) [best, bestDistance, tied] = [value, distance, false];
    else if (distance === bestDistance) tied = true;
  }
  return best !== undefined && !tied ? best : undefined;
}
