/**
 * One problem file on a terminal, `<status>  <name>  <reason>`, in a given width. A long name gives
 * way first, keeping its end (the file name, see fitPath), so that the reason, which says what to
 * do, stays in sight; the reason is cut only when even a short name leaves it no room. Where the
 * row is too narrow for a name and a readable reason both (20 or 30 columns), the reason takes a
 * row of its own under the name.
 */
import { columnsOf, fitPath, fitWidth } from './fit.js';

/** A name cut for the reason's sake keeps at least this many columns: its last folder and its file name. */
const SHORT_NAME_COLUMNS = 24;
/** A reason beside its name shows at least this much of itself (`not a WAV…`), or it takes its own row. */
const SHORT_REASON_COLUMNS = 10;
const GAP = '  ';
/** The reason's own row is set in by this much, so that it reads as the row above's. */
const REASON_INDENT = '  ';

/**
 * `lead` is the status column with its separator; `name` and `reason` must already be escaped (see
 * sanitize.ts). The result is one row, or two joined by a line feed, none wider than `columns`.
 */
export function fitProblemLine(lead: string, name: string, reason: string, columns: number): string {
  const whole = `${lead}${name}${GAP}${reason}`;
  if (columnsOf(whole) <= columns) return whole;
  const nameRow = () => fitWidth(`${lead}${fitPath(name, columns - columnsOf(lead))}`, columns);
  if (reason === '') return nameRow();
  const besideLead = columns - columnsOf(lead) - GAP.length;
  const reasonWidth = columnsOf(reason);
  const nameColumns = Math.max(besideLead - reasonWidth, Math.min(columnsOf(name), SHORT_NAME_COLUMNS));
  const reasonColumns = besideLead - nameColumns;
  if (reasonColumns >= Math.min(reasonWidth, SHORT_REASON_COLUMNS))
    return `${lead}${fitPath(name, nameColumns)}${GAP}${fitWidth(reason, reasonColumns)}`;
  return `${nameRow()}\n${fitWidth(`${REASON_INDENT}${reason}`, columns)}`;
}
