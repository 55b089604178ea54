/**
 * What a terminal does to a line already drawn when a person narrows its window. Most terminals
 * today (tmux, VTE's, kitty, iTerm2, Windows Terminal) rewrap it: a line of 82 columns narrowed to
 * 30 takes three rows, the cursor on the last. Others (xterm, the Linux console) cut it at the
 * edge and leave it on its row. The live line must erase the rows its old copy now takes,
 * and only those: a program cannot ask which kind it is talking to without reading the terminal's
 * answer from stdin (raw mode, which would swallow Ctrl-C), and the rows above a line that was not
 * rewrapped hold other output (a warning, the shell's last command) that must stay.
 */

/**
 * TERM values that only a terminal that rewraps sets, each for its own programs: a terminal started
 * from one of them sets its own TERM, so the value is never inherited by one that does not rewrap.
 */
const REWRAPPING_TERMS = new Set([
  'xterm-kitty',
  'xterm-ghostty',
  'alacritty',
  'foot',
  'foot-extra',
  'wezterm',
]);

/**
 * Whether the terminal is known to rewrap its rows when narrowed. Only a certain yes counts: a wrong
 * one erases other output, a wrong no leaves rows of the old line on screen. tmux says so by TMUX
 * with a TERM of its own (a terminal started inside tmux inherits TMUX but sets its TERM); GNU
 * screen, run inside tmux or around it, says so by STY, and then the answer is no. Variables that a terminal
 * sets besides TERM (VTE_VERSION, TERM_PROGRAM, WT_SESSION) are inherited by a terminal started
 * from it, xterm included, so they are not trusted.
 */
export function terminalRewraps(env: NodeJS.ProcessEnv): boolean {
  const term = env.TERM ?? '';
  if (env.STY !== undefined) return false;
  if (env.TMUX !== undefined && env.TMUX !== '' && /^(tmux|screen)/.test(term)) return true;
  return REWRAPPING_TERMS.has(term);
}

/** Rows a line of `lineColumns` takes in a terminal `columns` wide (at least one). */
export function rowsOf(lineColumns: number, columns: number): number {
  return Math.max(1, Math.ceil(lineColumns / Math.max(1, columns)));
}
