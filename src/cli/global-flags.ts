/**
 * Global flags typed before the command's name (`vredact --json jobs list`, `vredact -q redact …`),
 * as `aws` and `rclone` take theirs. Commander reads a subcommand's options only after its name, and
 * an option it does not know before the name makes it give up on finding the command; declaring
 * these on the program too would make it take them from every position, so the command's own
 * `--no-color` default would hide the program's. Instead they are moved to just after the command's
 * name, where that command's own options are read: a command that does not take one still refuses
 * it by name.
 */
import type { Command } from 'commander';

const SWITCHES = new Set(['--json', '-q', '--quiet', '-v', '--verbose', '--no-color']);
const WITH_VALUE = new Set(['--timeout', '--max-retries']);

/** How many words the global flag at `args[i]` takes (0: it is not one). */
function globalFlagLength(args: readonly string[], i: number): number {
  const word = args[i] ?? '';
  if (SWITCHES.has(word)) return 1;
  if (WITH_VALUE.has(word)) return i + 1 < args.length ? 2 : 1;
  const equals = word.indexOf('=');
  return equals > 0 && WITH_VALUE.has(word.slice(0, equals)) ? 1 : 0;
}

/** The user's words (after `node vredact`) with leading global flags moved after the command path. */
export function moveGlobalFlags(program: Command, args: readonly string[]): string[] {
  let i = 0;
  while (i < args.length) {
    const length = globalFlagLength(args, i);
    if (length === 0) break;
    i += length;
  }
  if (i === 0) return [...args];
  const flags = args.slice(0, i);
  let command = program;
  let end = i;
  for (;;) {
    const word = args[end];
    const sub = command.commands.find((c) => c.name() === word || c.aliases().includes(word ?? ''));
    if (!sub) break;
    command = sub;
    end++;
  }
  // No command named: leave the words as they were, for commander to report.
  if (command === program) return [...args];
  return [...args.slice(i, end), ...flags, ...args.slice(end)];
}
