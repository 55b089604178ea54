import cliTruncate from 'cli-truncate';

/**
 * Cuts a line to `columns` terminal columns (wide characters count twice), ending it with `…` when
 * cut, so that a line never wraps. The text must already be escaped (see sanitize.ts).
 */
export function fitWidth(text: string, columns: number): string {
  return cliTruncate(text, Math.max(1, columns), { position: 'end' });
}

/**
 * Joins the parts that fit in `columns`, leaving out the least important first (the higher its
 * `rank`, the sooner a part goes), then cuts what is left. Parts keep their order.
 */
export function fitParts(
  parts: ReadonlyArray<{ text: string; rank: number }>,
  separator: string,
  columns: number,
): string {
  const kept = [...parts];
  const join = () => kept.map((part) => part.text).join(separator);
  while (kept.length > 1 && fitWidth(join(), columns) !== join()) {
    const worst = kept.reduce((a, b) => (b.rank > a.rank ? b : a));
    kept.splice(kept.indexOf(worst), 1);
  }
  return fitWidth(join(), columns);
}
