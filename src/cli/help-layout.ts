import { Help } from 'commander';

/** Columns beside the options and commands below which their descriptions go under them. */
const LEAST_BESIDE = 40;
/** Where a description under its option or command starts. */
const UNDER_INDENT = '    ';

/**
 * An option's or a command's help item on a terminal too narrow for its description beside it
 * (a 40-column window): the description on lines of its own under it, wrapped to the terminal.
 * commander does not wrap there (below 40 columns left), and the terminal cut the words in two
 * (`ver` / `sion`) after a run of padding; wider, commander's own layout is kept.
 */
export function formatHelpItem(term: string, termWidth: number, description: string, helper: Help): string {
  const width = helper.helpWidth ?? 80;
  const beside = width - termWidth - 4;
  if (description === '' || beside >= LEAST_BESIDE || helper.preformatted(description))
    return Help.prototype.formatItem.call(helper, term, termWidth, description, helper);
  const lines = wrapWords(description, Math.max(1, width - UNDER_INDENT.length), helper);
  return [`  ${term}`, ...lines.map((line) => `${UNDER_INDENT}${line}`)].join('\n');
}

/** `text` in lines of at most `columns` (a word longer than that alone on its line), breaking between words. */
function wrapWords(text: string, columns: number, helper: Help): string[] {
  const lines: string[] = [];
  for (const word of text.split(/\s+/).filter(Boolean)) {
    const last = lines.at(-1);
    if (last !== undefined && helper.displayWidth(`${last} ${word}`) <= columns)
      lines[lines.length - 1] = `${last} ${word}`;
    else lines.push(word);
  }
  return lines;
}
