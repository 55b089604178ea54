/**
 * `--min-age`: an input modified less than that before the run started may still be being written (a
 * call still recorded, its WAV header not yet fixed), so it is left for a later run: not checked, not
 * sent, not journaled. One instant for the whole run (as rclone takes the time its command started),
 * so the rule is the same for every file of it whatever order they are reached in.
 */
import { formatDuration } from '../output/format.js';

/** A modification time this far past the clock is clock skew worth a warning, not a coarse clock. */
const FUTURE_SLACK_MS = 1000;

/** `12 s` under a minute, else `4:05` or `1:02:03`. */
function spanText(ms: number): string {
  // Down, so that a file under the minimum never reads as old as it (`4:59`, not `5:00`).
  const seconds = Math.floor(ms / 1000);
  return seconds < 60 ? `${seconds} s` : formatDuration(seconds);
}

/** `--min-age`, checked: its length and the text the user gave (`10m`), for the reasons. */
export interface MinAge {
  ms: number;
  label: string;
}

export class MinAgeRule {
  readonly #minAgeMs: number;
  readonly #label: string;
  readonly #startedMs: number;
  readonly #now: () => number;
  readonly #warn: (message: string) => void;
  #warned = false;

  /**
   * `startedMs`: when the run started; `now`: the clock, to tell a time in the future from one
   * during this run. `warn` is told once per run, of the first input whose time is in the future.
   */
  constructor(minAge: MinAge, startedMs: number, now: () => number, warn: (message: string) => void) {
    this.#minAgeMs = minAge.ms;
    this.#label = minAge.label;
    this.#startedMs = startedMs;
    this.#now = now;
    this.#warn = warn;
  }

  /**
   * Why the input of modification time `mtimeMs` is left for a later run; undefined when it is old
   * enough (an age of exactly the minimum is), or when there is no minimum (0). A time in the future
   * is left too, as rclone leaves it: nothing tells that such a file is finished, and sending a
   * recording cut short is worse than waiting; the warning says how to release it.
   */
  leftReason(mtimeMs: number, display: string): string | undefined {
    if (this.#minAgeMs <= 0) return undefined;
    const ageMs = this.#startedMs - mtimeMs;
    if (ageMs >= this.#minAgeMs) return undefined;
    const under = `under --min-age ${this.#label}: left for a later run`;
    if (ageMs >= 0) return `modified ${spanText(ageMs)} ago, ${under}`;
    const aheadMs = mtimeMs - this.#now();
    if (aheadMs <= FUTURE_SLACK_MS) return `modified after this run started, ${under}`;
    const ahead = spanText(aheadMs);
    if (!this.#warned) {
      this.#warned = true;
      this.#warn(
        `${display}: its modification time is ${ahead} in the future; files like it are left by --min-age ${this.#label} until they are older (fix the clock, or the file's time with touch)`,
      );
    }
    return `modified ${ahead} in the future, ${under}`;
  }
}
