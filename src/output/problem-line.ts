/**
 * One problem file on a terminal, `<status>  <name>  <reason>`, in a given width. A long name is cut
 * in its middle, keeping its start and its end (the folder it is in, its extension), so that the
 * reason, which says what to do, stays in sight; the reason is cut only when even a short name
 * leaves it no room.
 */
import { columnsOf, fitMiddle, fitWidth } from './fit.js';

/** A name cut for the reason's sake keeps at least this many columns: its first folder and its file name. */
const SHORT_NAME_COLUMNS = 24;
const GAP = '  ';

/**
 * `lead` is the status column with its separator; `name` and `reason` must already be escaped (see
 * sanitize.ts).
 */
export function fitProblemLine(lead: string, name: string, reason: string, columns: number): string {
  const whole = `${lead}${name}${GAP}${reason}`;
  if (columnsOf(whole) <= columns) return whole;
  const besideLead = columns - columnsOf(lead) - GAP.length;
  const leftByReason = besideLead - columnsOf(reason);
  // Past the short name, the reason is cut at the end; the name never is, so its end stays shown
  // (with at least `…` of the reason after it, saying there is one).
  const nameColumns = Math.min(
    Math.max(leftByReason, Math.min(columnsOf(name), SHORT_NAME_COLUMNS)),
    besideLead - 1,
  );
  return fitWidth(`${lead}${fitMiddle(name, Math.max(1, nameColumns))}${GAP}${reason}`, columns);
}
