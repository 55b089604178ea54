/** How the bench prints its figures: seconds, MB, ms per file, the verdict against a target. */
import { median } from './measure.js';

export const s = (value) => (value === undefined ? '–' : `${value.toFixed(2)} s`);
export const mb = (value) => (value === undefined ? '–' : `${Math.round(value)} MB`);
export const verdict = (ok) => (ok === undefined ? 'not measured' : ok ? 'meets' : 'MISSES');
export const perFile = (cpuS, files) =>
  cpuS === undefined ? '–' : `${((cpuS * 1000) / files).toFixed(2)} ms per file`;
export const cpuOf = (run) => (run.userS === undefined ? undefined : run.userS + run.sysS);
/** The median cost of creating a file in the runs' output folders (see bench/create-cost.js). */
export const createdAt = (runs) => {
  const us = median(runs.map((run) => run.createUs));
  return us === undefined ? '' : ` (a file created in its output folder: ${Math.round(us)} µs)`;
};
