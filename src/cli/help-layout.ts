import { Help } from 'commander';
import { columnsOf } from '../output/fit.js';
import { type OutStream, terminalColumns } from '../output/iostreams.js';

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
  const lines = wrapWords(description, Math.max(1, width - UNDER_INDENT.length));
  return [`  ${term}`, ...lines.map((line) => `${UNDER_INDENT}${line}`)].join('\n');
}

/** `text` in lines of at most `columns` (a word longer than that alone on its line), breaking between words. */
function wrapWords(text: string, columns: number): string[] {
  const lines: string[] = [];
  for (const word of text.split(/\s+/).filter(Boolean)) {
    const last = lines.at(-1);
    if (last !== undefined && columnsOf(`${last} ${word}`) <= columns)
      lines[lines.length - 1] = `${last} ${word}`;
    else lines.push(word);
  }
  return lines;
}

/** A help topic's line of the top-level help: `  vredact help journal   how re-runs skip …`. */
const TOPIC_LINE = /^( {2}vredact help \S+ +)(\S.*)$/;
/** An example's comment: `  # rehearse a flaky, throttled service`. */
const COMMENT_LINE = /^(\s*# )(.*)$/;
/** An example's command, copied by the user: never broken. */
const COMMAND_LINE = /^\s*\$ /;

/**
 * Help's own text (its usage line, topics, examples' comments, closing words) wrapped between words
 * to a terminal of `width` columns, each line's continuation indented as it was: commander wraps only
 * options and descriptions, and the terminal cut the rest inside words at 40 columns. An example's
 * command is kept whole, as it is copied. Lines that fit are as they were.
 */
export function wrapHelpText(text: string, width: number): string {
  return text
    .split('\n')
    .flatMap((line) => {
      if (columnsOf(line) <= width || COMMAND_LINE.test(line)) return [line];
      const topic = TOPIC_LINE.exec(line);
      if (topic) {
        const [, term = '', summary = ''] = topic;
        if (width - term.length >= LEAST_BESIDE / 2)
          return hanging(term, summary, width, ' '.repeat(term.length));
        return [
          term.trimEnd(),
          ...wrapWords(summary, width - UNDER_INDENT.length).map((l) => `${UNDER_INDENT}${l}`),
        ];
      }
      const comment = COMMENT_LINE.exec(line);
      if (comment) return hanging(comment[1] ?? '', comment[2] ?? '', width, comment[1] ?? '');
      const indent = /^\s*/.exec(line)?.[0] ?? '';
      return hanging(indent, line.slice(indent.length), width, indent);
    })
    .join('\n');
}

/** `rest` wrapped after `first` on its first line and after `next` on the others. */
function hanging(first: string, rest: string, width: number, next: string): string[] {
  const room = Math.max(1, width - Math.max(first.length, next.length));
  return wrapWords(rest, room).map((line, i) => `${i === 0 ? first : next}${line}`);
}

/** Writes help to `stream`, wrapped to its width when it is a terminal (a pipe gets it as it is). */
export function helpWriter(stream: OutStream): (text: string) => void {
  return (text) => {
    const columns = terminalColumns(stream);
    stream.write(columns > 0 ? wrapHelpText(text, columns) : text);
  };
}
