/** Turns the `vredact sandbox` flags (strings from commander) into `startSandbox` options. */
import { resolve } from 'node:path';
import { UsageError } from '../../errors.js';
import { resolveOptions, type SandboxOptions } from '../../sandbox/index.js';
import { SandboxOptionError } from '../../sandbox/options.js';
import { BadValueError } from '../../settings/bad-value.js';
import { parseRateLimit } from '../../sandbox/rate-limit.js';
import { refuseEmptyFlag } from '../../settings/empty-flag.js';

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

function number(value: unknown, flag: string, fallback: string): number {
  const text = value === undefined ? fallback : String(value).trim();
  const n = text === '' ? Number.NaN : Number(text);
  if (!Number.isFinite(n)) throw new BadValueError(`${flag} must be a number (got "${text}")`);
  return n;
}

export function parseSandboxFlags(flags: SandboxFlags, cwd: string): SandboxOptions {
  const host = flags.host === undefined ? '127.0.0.1' : String(flags.host);
  const tokens = (
    Array.isArray(flags.token) ? flags.token : flags.token === undefined ? [] : [flags.token]
  ).map(String);
  const apiPort = number(flags.port, '--port', '8787');
  const filesPort = number(flags.filesPort, '--files-port', '0');
  const syncLimitSec = number(flags.syncLimit, '--sync-limit', '30');
  const speed = number(flags.speed, '--speed', '1');
  const failRate = number(flags.failRate, '--fail-rate', '0');
  const latencyMs = number(flags.latency, '--latency', '0');
  const seed = number(flags.seed, '--seed', '1');

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
    throw new BadValueError(error.message, error.nearest === undefined ? undefined : String(error.nearest));
  }
  return options;
}
