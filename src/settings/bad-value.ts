/**
 * The one shape of an option value refused: one line naming the option, the value given and what the
 * option takes, then a hint. Where a number went past an end of its range the hint gives that end;
 * it always names the command's --help, which only the command's runner knows (src/cli/action.ts
 * fills it in, as commander's own parse errors name it: src/cli/parse-errors.ts).
 */
import { UsageError } from '../errors.js';

export class BadValueError extends UsageError {
  override name = 'BadValueError';
  constructor(
    message: string,
    /** The allowed value nearest to the one given, as the option is written (`64`, `7d`). */
    readonly nearest?: string,
  ) {
    super(message, nearestHint(nearest, "the command's --help"));
  }
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
