/**
 * Tests only: `VREDACT_TEST_PAUSE=<point>` holds a run at the start of one of its long phases until
 * its first interrupt, so that a test of the built command can interrupt it exactly there, however
 * fast or slow the machine. Planning or reading the journals of 1,000,000 inputs takes seconds, a
 * test's few files far less: a signal sent "during" a phase by timing would land anywhere. Not a
 * setting: a user's run never waits here.
 */

/**
 * Where a run can be held: before its plan, before it reads the journals, as it compacts its own,
 * once it has decided its first input (that input's upload may then be in flight, the others wait),
 * and before it settles the outputs the journal cannot vouch for, once every input is decided.
 */
export type PausePoint = 'plan' | 'journal' | 'compaction' | 'decide' | 'settle';

/** Held until a second interrupt, not the first: what a test shows there is what a second one ends. */
const UNTIL_SECOND: ReadonlySet<PausePoint> = new Set(['settle']);

/** Holds the run at `point` when a test asked for it; a no-op otherwise. */
export type Pause = (point: PausePoint) => Promise<void>;

const TEST_PAUSE_ENV = 'VREDACT_TEST_PAUSE';

/** Held for at most this long: a test that never sends its signal fails, it does not hang. */
const LONGEST_PAUSE_MS = 60_000;

export const noPause: Pause = () => Promise.resolve();

/**
 * The run's pause: at the point named in `env`, it says so (`say`, on stderr: the test waits for
 * that line) and waits until `interrupts.stop` (the first) is aborted, or `interrupts.end` (the
 * second) at a point held until then; then the phase starts, already interrupted.
 */
export function testPause(
  env: NodeJS.ProcessEnv,
  interrupts: { stop: AbortSignal; end: AbortSignal },
  say: (line: string) => void,
): Pause {
  const asked = env[TEST_PAUSE_ENV];
  if (!asked) return noPause;
  return async (point) => {
    const stop = UNTIL_SECOND.has(point) ? interrupts.end : interrupts.stop;
    if (point !== asked || stop.aborted) return;
    say(`paused at the ${point} for a test (${TEST_PAUSE_ENV})`);
    await new Promise<void>((resolve) => {
      // The timer keeps the process alive while it waits: an abort listener alone would not.
      const timer = setTimeout(resolve, LONGEST_PAUSE_MS);
      stop.addEventListener(
        'abort',
        () => {
          clearTimeout(timer);
          resolve();
        },
        { once: true },
      );
    });
  };
}
