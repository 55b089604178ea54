/**
 * `--stats` lines before the deciding's progress line takes over: while the run lists and plans its
 * inputs, waits for its output folder's lock (--lock-wait) and reads its journals, a plain line every
 * interval says which and how long the run has been at it: `waiting for the lock of the output folder
 * /srv/redacted, held by pid 7 on idx-0, started … · 4:00 elapsed`. Before, a run's first `--stats`
 * line came once the journals were read, and a cron log of `--quiet --stats 10m` could not tell a run
 * waiting 15 minutes for the lock, or reading a journal of millions of lines, from a hung one.
 * Only `--stats` lines: a terminal's live line starts with the deciding, as it did.
 */
import { formatDuration } from '../output/format.js';
import type { IOStreams } from '../output/iostreams.js';
import { SEPARATOR } from '../output/progress-line.js';
import { startStatusLine } from '../output/status-line.js';

export interface PhaseStats {
  /** What the run is doing now (`reading the journals`), for the next line. */
  now(doing: string): void;
  /** No more lines (the run's progress line takes over, or the run ends). Idempotent. */
  stop(): void;
}

export async function startPhaseStats(
  io: Pick<IOStreams, 'stderr' | 'color' | 'statsIntervalMs'>,
  clock: () => number,
  startedMs: number,
): Promise<PhaseStats> {
  let doing = 'listing the inputs';
  const elapsed = () => `${formatDuration(Math.max(0, clock() - startedMs) / 1000)} elapsed`;
  const status = await startStatusLine({ ...io, progress: false }, () => `${doing}${SEPARATOR}${elapsed()}`);
  return {
    now: (text) => {
      doing = text;
    },
    stop: () => status.stop(),
  };
}
