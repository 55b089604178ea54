/**
 * The batch's halt: a failure no other file can escape (a full disk, a journal that cannot be
 * written) stops it, once; nothing new is sent after it, and the run ends with the first such error.
 */

/** Stops the batch on a failure no other file can escape (a full disk). */
export interface Halt {
  readonly signal: AbortSignal;
  /** The first failure that halted the batch. */
  readonly reason: unknown;
  stop(error: unknown): void;
}

export function createHalt(): Halt {
  const controller = new AbortController();
  let reason: unknown;
  return {
    signal: controller.signal,
    get reason() {
      return reason;
    },
    stop(error) {
      if (reason !== undefined) return;
      reason = error;
      controller.abort(error);
    },
  };
}
