/** Turns the `vredact sandbox` flags (strings from commander) into `startSandbox` options. */
import { resolve } from 'node:path';
import { UsageError } from '../../errors.js';
import { isLoopbackHost, type SandboxOptions } from '../../sandbox/index.js';
import { parseRateLimit } from '../../sandbox/rate-limit.js';

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
  if (!Number.isFinite(n)) throw new UsageError(`${flag} must be a number (got "${text}")`);
  return n;
}

function port(value: unknown, flag: string, fallback: string): number {
  const n = number(value, flag, fallback);
  if (!Number.isInteger(n) || n < 0 || n > 65535) {
    throw new UsageError(`${flag} must be a port number from 0 to 65535 (got "${String(value)}")`);
  }
  return n;
}

export function parseSandboxFlags(flags: SandboxFlags, cwd: string): SandboxOptions {
  const host = flags.host === undefined ? '127.0.0.1' : String(flags.host);
  if (!isLoopbackHost(host)) {
    throw new UsageError(
      `--host must be a loopback address (127.0.0.0/8, localhost or ::1), got "${host}"`,
      'the sandbox accepts throwaway tokens over plain http: it only listens on this machine',
    );
  }
  const apiPort = port(flags.port, '--port', '8787');
  const filesPort = port(flags.filesPort, '--files-port', '0');
  if (apiPort !== 0 && apiPort === filesPort) throw new UsageError('--port and --files-port must differ');

  const tokens = (
    Array.isArray(flags.token) ? flags.token : flags.token === undefined ? [] : [flags.token]
  ).map(String);
  for (const token of tokens) {
    if (!/^[\x21-\x7e]+$/.test(token)) {
      throw new UsageError('--token must be printable ASCII without spaces');
    }
  }

  const syncLimitSec = number(flags.syncLimit, '--sync-limit', '30');
  if (syncLimitSec < 0) throw new UsageError('--sync-limit must be 0 or more seconds');
  const speed = number(flags.speed, '--speed', '1');
  if (speed <= 0) throw new UsageError('--speed must be above 0');
  const failRate = number(flags.failRate, '--fail-rate', '0');
  if (failRate < 0 || failRate > 1) throw new UsageError('--fail-rate must be from 0 to 1');
  const latencyMs = number(flags.latency, '--latency', '0');
  if (latencyMs < 0) throw new UsageError('--latency must be 0 or more milliseconds');
  const seed = number(flags.seed, '--seed', '1');
  if (!Number.isSafeInteger(seed)) throw new UsageError('--seed must be a whole number');

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
      throw new UsageError(`--rate-limit must look like 5/1s or 100/1m (got "${String(flags.rateLimit)}")`);
    options.rateLimit = rateLimit;
  }
  if (flags.dataDir !== undefined && flags.dataDir !== '')
    options.dataDir = resolve(cwd, String(flags.dataDir));
  return options;
}
