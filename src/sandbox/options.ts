/** What `startSandbox` takes, its defaults and their checks. */
import { SIGNED_URL_TTL_SEC } from './limits.js';
import type { RateLimit } from './rate-limit.js';
import { isLoopbackHost } from '../net/loopback.js';

export interface SandboxOptions {
  /** Port of the API listener; 0 picks a free one. */
  port?: number;
  /** Loopback address both listeners bind to. */
  host?: string;
  /** Port of the signed-URL file listener; 0 (default) picks a free one. */
  filesPort?: number;
  /** Accepted bearer tokens; one `vr_sandbox_<hex>` is generated when empty. */
  tokens?: readonly string[];
  /** Audio up to this many seconds is answered synchronously. */
  syncLimitSec?: number;
  /** How much faster than the model's real-time factor asynchronous results appear. */
  speed?: number;
  /** Keeps jobs and files here across restarts; a temporary folder (removed on close) otherwise. */
  dataDir?: string;
  /** Share of API requests answered with a 503 (0 to 1). */
  failRate?: number;
  /** Delay added before every API answer, in milliseconds. */
  latencyMs?: number;
  /** At most this many API requests per token and period; beyond it, 429 with Retry-After. */
  rateLimit?: RateLimit;
  /** Seed of the fault injection and of the voice change. */
  seed?: number;
  /** Lifetime of signed URLs in seconds (default 15 minutes; tests use a negative one for expired URLs). */
  signedUrlTtlSec?: number;
  /** How often the lock of `dataDir` is refreshed and checked, in ms (tests shorten it; 30 s by default). */
  lockRefreshMs?: number;
  /** Receives one line per request (`POST /api/jobs 201 3ms`); never a token. */
  onRequestLine?: (line: string) => void;
  /** Receives diagnostics (job processing, reasons of refusals). */
  onDebug?: (line: string) => void;
  /** Receives problems worth a warning (a corrupt job file, a failed redaction). */
  onWarning?: (line: string) => void;
}

export type ResolvedSandboxOptions = Required<
  Omit<
    SandboxOptions,
    'dataDir' | 'lockRefreshMs' | 'onRequestLine' | 'onDebug' | 'onWarning' | 'tokens' | 'rateLimit'
  >
> & {
  lockRefreshMs: number | undefined;
  rateLimit: RateLimit | undefined;
  tokens: string[];
  dataDir: string | undefined;
  onRequestLine: (line: string) => void;
  onDebug: (line: string) => void;
  onWarning: (line: string) => void;
};

export const DEFAULT_PORT = 8787;
export const DEFAULT_SYNC_LIMIT_SEC = 30;

/** The address to bind: `localhost` is pinned to 127.0.0.1 so the printed URL always reaches it. */
export function bindAddress(host: string): string {
  if (host === 'localhost') return '127.0.0.1';
  if (host === '[::1]') return '::1';
  return host;
}

/** `host:port` as it appears in a URL. */
export function urlHost(address: string, port: number): string {
  return address.includes(':') ? `[${address}]:${port}` : `${address}:${port}`;
}

/** A value the sandbox cannot honour; its message names the command-line flag and the value given. */
export class SandboxOptionError extends RangeError {
  constructor(
    message: string,
    /** The allowed value nearest the one given, where there is one. */
    readonly nearest?: number,
    /** For a number out of its range: the flag and what it takes, so a caller can name the value as typed. */
    readonly range?: { flag: string; takes: string },
  ) {
    super(message);
  }
}

function check(condition: boolean, message: string): void {
  if (!condition) throw new SandboxOptionError(message);
}

/** Refuses `n` unless `allowed`: "<flag> must be <takes> (got "<n>")", with the nearest allowed value. */
function checkNumber(allowed: boolean, flag: string, takes: string, n: number, nearest?: number): void {
  if (allowed) return;
  // NaN is no number past an end: nothing is nearer to it than anything else.
  const near = Number.isNaN(n) ? undefined : nearest;
  throw new SandboxOptionError(`${flag} must be ${takes} (got "${n}")`, near, { flag, takes });
}

/** `min` or `max`, whichever `n` went past (undefined when it is in range or no number). */
function nearestOf(n: number, min: number, max: number): number | undefined {
  return n < min ? min : n > max ? max : undefined;
}

const isPort = (n: number) => Number.isInteger(n) && n >= 0 && n <= 65535;
const PORT = 'a port number from 0 to 65535';

/** Fills in defaults and refuses values the sandbox cannot honour (a RangeError naming the option). */
export function resolveOptions(
  options: SandboxOptions,
  generatedToken: () => string,
): ResolvedSandboxOptions {
  const resolved: ResolvedSandboxOptions = {
    port: options.port ?? DEFAULT_PORT,
    host: options.host ?? '127.0.0.1',
    filesPort: options.filesPort ?? 0,
    tokens: options.tokens && options.tokens.length > 0 ? [...options.tokens] : [generatedToken()],
    syncLimitSec: options.syncLimitSec ?? DEFAULT_SYNC_LIMIT_SEC,
    speed: options.speed ?? 1,
    dataDir: options.dataDir,
    lockRefreshMs: options.lockRefreshMs,
    failRate: options.failRate ?? 0,
    latencyMs: options.latencyMs ?? 0,
    rateLimit: options.rateLimit,
    seed: options.seed ?? 1,
    signedUrlTtlSec: options.signedUrlTtlSec ?? SIGNED_URL_TTL_SEC,
    onRequestLine: options.onRequestLine ?? (() => {}),
    onDebug: options.onDebug ?? (() => {}),
    onWarning: options.onWarning ?? (() => {}),
  };
  check(
    isLoopbackHost(resolved.host),
    `--host must be a loopback address (127.0.0.0/8, localhost or ::1), got "${resolved.host}"`,
  );
  checkNumber(isPort(resolved.port), '--port', PORT, resolved.port, nearestOf(resolved.port, 0, 65535));
  checkNumber(
    isPort(resolved.filesPort),
    '--files-port',
    PORT,
    resolved.filesPort,
    nearestOf(resolved.filesPort, 0, 65535),
  );
  check(resolved.port === 0 || resolved.port !== resolved.filesPort, '--port and --files-port must differ');
  for (const token of resolved.tokens) {
    check(/^[\x21-\x7e]+$/.test(token), '--token must be printable ASCII without spaces');
  }
  checkNumber(
    Number.isFinite(resolved.syncLimitSec) && resolved.syncLimitSec >= 0,
    '--sync-limit',
    '0 or more seconds',
    resolved.syncLimitSec,
    0,
  );
  checkNumber(
    Number.isFinite(resolved.speed) && resolved.speed > 0,
    '--speed',
    'a number above 0',
    resolved.speed,
  );
  checkNumber(
    resolved.failRate >= 0 && resolved.failRate <= 1,
    '--fail-rate',
    'a number from 0 to 1',
    resolved.failRate,
    nearestOf(resolved.failRate, 0, 1),
  );
  checkNumber(
    Number.isFinite(resolved.latencyMs) && resolved.latencyMs >= 0,
    '--latency',
    '0 or more milliseconds',
    resolved.latencyMs,
    0,
  );
  checkNumber(
    Number.isSafeInteger(resolved.seed) && resolved.seed >= 0,
    '--seed',
    'a whole number, 0 or more',
    resolved.seed,
    resolved.seed < 0 ? 0 : undefined,
  );
  check(Number.isInteger(resolved.signedUrlTtlSec), 'signed URL lifetime must be a whole number of seconds');
  return resolved;
}
