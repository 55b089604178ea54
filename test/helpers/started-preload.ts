/**
 * A script for `node --require` that writes the file `STARTED_FILE` names once the binary holds the
 * signals: a test's signal sent after it is one the run must answer by its rule. Written as the
 * first JavaScript ran, the file came 2 to 10 ms before the listener on a quiet machine, and over
 * 25 ms before it on one loaded by a dozen processes, where a signal "25 ms in" then came before the
 * binary could catch any. Written as the first listener was put on (before it was, as `newListener`
 * comes first), a process held up for 25 ms at that moment took a SIGHUP before its listener for it
 * (one failure under load). It is written in a microtask of that moment: bin/vredact.cjs puts its
 * listeners on all three signals in one synchronous stretch, which ends before any microtask runs.
 */
export const STARTED_PRELOAD = `
const onListener = (event) => {
  if (event !== 'SIGINT' && event !== 'SIGTERM' && event !== 'SIGHUP') return;
  process.off('newListener', onListener);
  queueMicrotask(() => require('node:fs').writeFileSync(process.env.STARTED_FILE, ''));
};
process.on('newListener', onListener);
`;
