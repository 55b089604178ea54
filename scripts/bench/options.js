/** The options of `bench:batch`, checked (every size bounded); `--help` prints them. */
import { statSync } from 'node:fs';
import { parseArgs } from 'node:util';

function isFolder(path) {
  return statSync(path, { throwIfNoEntry: false })?.isDirectory() === true;
}

const HELP = `usage: npm run bench:batch -- [options]   (after npm run build)
  --quick                          a small smoke run
  --only speed|memory|status|download|lookup
                                   one part only
  --files 480                      one-second WAVs of the speed part
  --latency 100                    the stand-in's latency in the speed part, ms
  --runs 3                         runs of each speed case (the median is printed)
  --concurrency 8,32               the -c values of the speed part
  --medium 10000 --many 100000     small WAVs of the memory part (0 skips one)
  --many-concurrency 16            the -c of the memory part
  --many-latency 0                 the stand-in's latency in the memory part, ms
  --status-inputs 100000,1000000   journal sizes of the status part
  --download-files 20000,100000    files of the job of the download part
  --lookup-jobs 1000,1000000       jobs the stand-in lists in the look-up part
  --scratch DIR                    where the temporary folder goes (default: the system's temporary
                                   folder); the disk under it is the one measured`;

function fail(message) {
  console.error(`bench:batch: ${message}`);
  process.exit(2);
}

function parseOptions() {
  try {
    return parseArgs({
      options: {
        help: { type: 'boolean', default: false },
        quick: { type: 'boolean', default: false },
        only: { type: 'string' },
        files: { type: 'string' },
        latency: { type: 'string' },
        runs: { type: 'string' },
        concurrency: { type: 'string' },
        many: { type: 'string' },
        medium: { type: 'string' },
        'many-concurrency': { type: 'string' },
        'many-latency': { type: 'string' },
        'status-inputs': { type: 'string' },
        'download-files': { type: 'string' },
        'lookup-jobs': { type: 'string' },
        scratch: { type: 'string' },
      },
    }).values;
  } catch (error) {
    return fail(`${error.message} (--help lists the options)`);
  }
}

/** A whole number from `min` to `max`. */
function whole(name, text, min, max) {
  const n = Number(text);
  if (!Number.isInteger(n) || n < min || n > max) {
    fail(`--${name} takes whole numbers from ${min} to ${max} (got "${text}")`);
  }
  return n;
}

/** Reads the command line; exits 2 on a bad option, 0 after `--help`. */
export function readOptions() {
  const opts = parseOptions();
  if (opts.help) {
    console.log(HELP);
    process.exit(0);
  }
  if (opts.only !== undefined && !['speed', 'memory', 'status', 'download', 'lookup'].includes(opts.only)) {
    fail(`--only takes speed, memory, status, download or lookup (got "${opts.only}")`);
  }
  const quick = opts.quick;
  const one = (name, fallback, min, max) =>
    opts[name] === undefined ? fallback : whole(name, opts[name], min, max);
  const list = (name, fallback, min, max) =>
    (opts[name] ?? fallback).split(',').map((text) => whole(name, text, min, max));
  const config = {
    files: one('files', quick ? 48 : 480, 1, 100_000),
    latencyMs: one('latency', 100, 0, 10_000),
    runs: one('runs', quick ? 1 : 3, 1, 20),
    concurrencies: list('concurrency', '8,32', 1, 64),
    many: one('many', quick ? 2_000 : 100_000, 0, 1_000_000),
    medium: one('medium', quick ? 500 : 10_000, 0, 1_000_000),
    manyConcurrency: one('many-concurrency', 16, 1, 64),
    manyLatencyMs: one('many-latency', 0, 0, 10_000),
    statusInputs: list('status-inputs', quick ? '2000' : '100000,1000000', 1, 10_000_000),
    downloadFiles: list('download-files', quick ? '500' : '20000,100000', 1, 1_000_000),
    // The service's listing is read up to 1,000,000 jobs (MAX_LIST_ITEMS).
    lookupJobs: list('lookup-jobs', quick ? '1000,20000' : '1000,1000000', 1, 1_000_000),
  };
  if (opts.scratch !== undefined && !isFolder(opts.scratch)) fail(`--scratch: no folder ${opts.scratch}`);
  return { only: opts.only, scratchBase: opts.scratch, config };
}
