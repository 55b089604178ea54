/**
 * Files a module finds beside the code that runs. This module lies at the top of src/ (of dist/ once
 * built), as the bundle and its chunks do (scripts/bundle.js): a path relative to it names the same
 * file whether the code runs from tsc's output or from the bundle.
 */

/** The audio worker thread's script; absent when the code runs from its TypeScript source. */
export const AUDIO_WORKER_URL = new URL('./audio/worker.js', import.meta.url);

/** True when the code runs from its TypeScript source (under vitest), which has no compiled worker. */
export const RUNNING_FROM_SOURCE = import.meta.url.endsWith('.ts');
