/** A person's shell at a terminal (its prompt `$ `), and what one Tab puts on the prompt's row. */
import { until } from './e2e.js';
import type { TmuxTerminal } from './tmux.js';

let marks = 0;

/** The prompt's row after typing `line`, a Tab, then X: what the Tab put in, if anything, before X. */
export async function rowAfterTab(shell: TmuxTerminal, line: string): Promise<string> {
  // Typed only once the shell shows its prompt again: keys that come while it runs a command are
  // echoed by the terminal ahead of the prompt, on the prompt's row.
  const mark = `ready-${process.pid}-${++marks}`;
  await shell.keys('C-u');
  await shell.keys('-l', `clear; echo ${mark}`);
  await shell.keys('Enter');
  await until(async () => {
    const rows = await shell.rows();
    return rows.includes(mark) && rows[rows.indexOf(mark) + 1] === '$';
  });
  await shell.keys('-l', line);
  await shell.keys('Tab', 'X');
  const rows = await shell.waitFor(/^\$ vredact .*X$/);
  return rows.find((row) => /^\$ vredact .*X$/.test(row)) ?? '';
}
