/**
 * One full garbage collection, asked for by the program. Node.js has no API for it; `--expose-gc`
 * set at run time is read when a context is made, so a new `vm` context carries V8's `gc` function
 * (the idiom of Node.js's own tests and of the `expose-gc` package, three lines not worth a
 * dependency). The function and its context are dropped after the call.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/** Collects all garbage now; false where this Node.js does not allow it. */
export function fullCollection(): boolean {
  try {
    setFlagsFromString('--expose-gc');
    const gc: unknown = runInNewContext('gc');
    if (typeof gc !== 'function') return false;
    (gc as () => void)();
    return true;
  } catch {
    return false;
  }
}
