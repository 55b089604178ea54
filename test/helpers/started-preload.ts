/**
 * A script for `node --require` that writes the file `STARTED_FILE` names once the binary holds the
 * signals (bin/vredact.cjs's first listener for one): a test's signal sent after it is one the run
 * must answer by its rule. Written as the first JavaScript ran, the file came 2 to 10 ms before the
 * listener on a quiet machine, and over 25 ms before it on one loaded by a dozen processes, where a
 * signal "25 ms in" then came before the binary could catch any.
 */
export const STARTED_PRELOAD = `
const onListener = (event) => {
  if (event !== 'SIGINT' && event !== 'SIGTERM' && event !== 'SIGHUP') return;
  process.off('newListener', onListener);
  require('node:fs').writeFileSync(process.env.STARTED_FILE, '');
};
process.on('newListener', onListener);
`;
