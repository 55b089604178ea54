/** Turns the `vredact sandbox` flags (strings from commander) into `startSandbox` options. */
import { resolve } from 'node:path';
import { UsageError } from '../../errors.js';
import { resolveOptions, type SandboxOptions } from '../../sandbox/index.js';
import { SandboxOptionError } from '../../sandbox/options.js';
import { BadValueError } from '../../settings/bad-value.js';
import { parseRateLimit } from '../../sandbox/rate-limit.js';
import { refuseEmptyFlag } from '../../settings/empty-flag.js';
import { typedNumber } from '../../settings/numbers.js';

export interface SandboxFlags {
  port?: unknown;
  host?: unknown;
  filesPort?: unknown;
  token?: unknown;
  syncLimit?: unknown;
  speed?: unknown;
  dataDir?: unknown;
  failRate?: unknown;
  latency?: unknown;
  seed?: unknown;
  rateLimit?: unknown;
}

/** Each number flag as typed, and whether it takes a decimal fraction (seconds, a factor, a share). */
const NUMBER_FLAGS = {
  '--port': 'whole',
  '--files-port': 'whole',
  '--sync-limit': 'fraction',
  '--speed': 'fraction',
  '--fail-rate': 'fraction',
  '--latency': 'whole',
  '--seed': 'whole',
} as const;
type NumberFlag = keyof typeof NUMBER_FLAGS;

export function parseSandboxFlags(flags: SandboxFlags, cwd: string): SandboxOptions {
  const host = flags.host === undefined ? '127.0.0.1' : String(flags.host);
  const tokens = (
    Array.isArray(flags.token) ? flags.token : flags.token === undefined ? [] : [flags.token]
  ).map(String);
  const typed: Partial<Record<NumberFlag, string>> = {};
  // NaN for what is not written in digits: resolveOptions refuses it as out of the flag's range.
  const number = (value: unknown, flag: NumberFlag): number | undefined => {
    if (value === undefined) return undefined;
    const text = (typed[flag] = String(value));
    return typedNumber(text, NUMBER_FLAGS[flag]);
  };
  const apiPort = number(flags.port, '--port');
  const filesPort = number(flags.filesPort, '--files-port');
  const syncLimitSec = number(flags.syncLimit, '--sync-limit');
  const speed = number(flags.speed, '--speed');
  const failRate = number(flags.failRate, '--fail-rate');
  const latencyMs = number(flags.latency, '--latency');
  const seed = number(flags.seed, '--seed');

  const options: SandboxOptions = {
    host,
    port: apiPort,
    filesPort,
    tokens,
    syncLimitSec,
    speed,
    failRate,
    latencyMs,
    seed,
  };
  if (flags.rateLimit !== undefined) {
    const rateLimit = parseRateLimit(String(flags.rateLimit));
    if (!rateLimit)
      throw new BadValueError(
        `--rate-limit must look like 5/1s or 100/1m (got "${String(flags.rateLimit)}")`,
      );
    options.rateLimit = rateLimit;
  }
  if (flags.dataDir !== undefined) {
    refuseEmptyFlag(
      String(flags.dataDir),
      '--data-dir',
      'give it a folder, or leave the flag out for a temporary one, removed on exit',
    );
    options.dataDir = resolve(cwd, String(flags.dataDir));
  }
  // The ranges are the sandbox's own rules (resolveOptions): checked there, once, for every caller.
  try {
    resolveOptions(options, () => 'vr_sandbox_check');
  } catch (error) {
    if (!(error instanceof SandboxOptionError)) throw error;
    if (error.message.startsWith('--host'))
      throw new UsageError(
        error.message,
        'the sandbox accepts throwaway tokens over plain http: it only listens on this machine',
      );
    const nearest = error.nearest === undefined ? undefined : String(error.nearest);
    // The value as it was typed (`1e3`), not as a number (1000, or NaN).
    const { range } = error;
    const given = range && typed[range.flag as NumberFlag];
    if (range && given !== undefined)
      throw new BadValueError(`${range.flag} must be ${range.takes} (got "${given}")`, nearest);
    throw new BadValueError(error.message, nearest);
  }
  return options;
}
