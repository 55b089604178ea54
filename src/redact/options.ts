import { SERVICE_UPLOAD_LIMIT_BYTES } from '../api/answer-hints.js';
import { refuseEmptyFlag } from '../settings/empty-flag.js';
import { BadValueError } from '../settings/bad-value.js';
import type { MinAge } from './min-age.js';

/** The service's limit: files over it are rejected before they are sent (see README). */
export const DEFAULT_MAX_SIZE = SERVICE_UPLOAD_LIMIT_BYTES;
/** The service rejects audio longer than 60 minutes. */
export const DEFAULT_MAX_DURATION_SECONDS = 3600;
/** How long to wait for an asynchronous job, from when this run starts waiting for it. */
export const DEFAULT_WAIT_TIMEOUT_MS = 2 * 3600 * 1000;
/**
 * How long a batch waits for a service that answered and then cannot be reached: a restart or a
 * deployment is over well within it; a longer outage stops the batch, its files pending.
 */
export const DEFAULT_MAX_OUTAGE_WAIT_MS = 10 * 60 * 1000;

export interface Shard {
  /** 1-based. */
  index: number;
  count: number;
}

/** The redact command's own options, checked; the shared settings (concurrency, voice, …) live in ctx.settings. */
export interface RedactOptions {
  filesFrom: string | undefined;
  /** `--files-from`'s paths are NUL-separated (`-0, --null`), each taken as it is. */
  nullSeparated: boolean;
  dryRun: boolean;
  overwrite: boolean;
  wait: boolean;
  waitTimeoutMs: number;
  /** `--min-age`: inputs modified more recently than this before the run started are left; 0: none. */
  minAge: MinAge;
  /** How long an outage of the service is ridden out before the batch stops (`--max-outage-wait`). */
  maxOutageWaitMs: number;
  /** How long a run waits for its output folder's lock held by another run (`--lock-wait`); 0: not at all. */
  lockWaitMs: number;
  shard: Shard | undefined;
  maxSize: number;
  maxDurationSec: number;
  /** How far a result's duration may be from its input's. */
  durationTolerance: DurationTolerance;
}

/**
 * How far a result's duration may be from its input's: the larger of `seconds` and `fraction` of the
 * input's duration (either may be 0). Default `max(2s,5%)`: a service may trim or pad a little
 * silence, but a result that lost a sizeable part of the recording is not a redaction of it.
 */
export interface DurationTolerance {
  seconds: number;
  fraction: number;
}

export const DEFAULT_DURATION_TOLERANCE: DurationTolerance = { seconds: 2, fraction: 0.05 };

/** The tolerance in seconds for an input of `durationSec`. */
export function toleranceSeconds(tolerance: DurationTolerance, durationSec: number): number {
  return Math.max(tolerance.seconds, tolerance.fraction * durationSec);
}

/** Reads `3s`, `500ms`, `10%` or `max(2s,5%)`; undefined when unreadable. */
export function parseDurationTolerance(text: string): DurationTolerance | undefined {
  const trimmed = text.trim().toLowerCase().replace(/\s+/g, '');
  const inner = /^max\((.*)\)$/.exec(trimmed)?.[1];
  const parts = inner !== undefined ? inner.split(',') : [trimmed];
  if (parts.length === 0 || parts.length > 2) return undefined;
  const result: DurationTolerance = { seconds: 0, fraction: 0 };
  for (const part of parts) {
    const percent = /^(\d+(?:\.\d+)?)%$/.exec(part);
    if (percent) {
      result.fraction = Math.max(result.fraction, Number(percent[1]) / 100);
      continue;
    }
    const ms = parseDurationMs(part);
    if (ms === undefined) return undefined;
    result.seconds = Math.max(result.seconds, ms / 1000);
  }
  return result;
}

const DURATION_UNITS: Record<string, number> = {
  ms: 1,
  s: 1000,
  sec: 1000,
  m: 60_000,
  min: 60_000,
  h: 3_600_000,
  d: 86_400_000,
};

/**
 * Reads a duration in milliseconds: plain seconds (`90`, `1.5`) or numbers with units, possibly
 * chained (`90s`, `30m`, `2h`, `1h30m`, `500ms`, `1d`). Undefined when the text is not a duration.
 */
export function parseDurationMs(text: string): number | undefined {
  const trimmed = text.trim().toLowerCase();
  if (trimmed === '') return undefined;
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Math.round(Number(trimmed) * 1000);
  const part = /(\d+(?:\.\d+)?)\s*(ms|sec|s|min|m|h|d)/y;
  let total = 0;
  let index = 0;
  while (index < trimmed.length) {
    part.lastIndex = index;
    const match = part.exec(trimmed);
    if (!match) return undefined;
    total += Number(match[1]) * (DURATION_UNITS[match[2] as string] as number);
    index = part.lastIndex;
    while (trimmed[index] === ' ') index++;
  }
  return Math.round(total);
}

const SIZE_UNITS: Record<string, number> = {
  '': 1,
  b: 1,
  k: 1000,
  kb: 1000,
  kib: 1024,
  m: 1000 ** 2,
  mb: 1000 ** 2,
  mib: 1024 ** 2,
  g: 1000 ** 3,
  gb: 1000 ** 3,
  gib: 1024 ** 3,
};

/** Reads a size in bytes: `1048576`, `500k`, `10MB` (decimal), `10MiB` (binary). Undefined when unreadable. */
export function parseSize(text: string): number | undefined {
  const match = /^(\d+(?:\.\d+)?)\s*([a-z]*)$/.exec(text.trim().toLowerCase());
  if (!match) return undefined;
  const unit = SIZE_UNITS[match[2] as string];
  if (unit === undefined) return undefined;
  return Math.floor(Number(match[1]) * unit);
}

/** Reads `i/n` (1-based): this machine's share of the inputs. `what` names where it came from. */
export function parseShard(text: string, what = '--shard'): Shard {
  const match = /^\s*(\d+)\s*\/\s*(\d+)\s*$/.exec(text);
  const index = Number(match?.[1]);
  const count = Number(match?.[2]);
  if (!match || count < 1 || index < 1 || index > count || count > 1_000_000) {
    throw new BadValueError(`${what} must look like i/n with 1 ≤ i ≤ n, e.g. 2/3 (got "${text}")`);
  }
  return { index, count };
}

/** A duration option, `fallback` when absent; `what` names where it came from. */
function durationOption(value: string | undefined, what: string, fallback: number): number {
  if (value === undefined) return fallback;
  const parsed = parseDurationMs(value);
  if (parsed === undefined) {
    throw new BadValueError(`${what} must be a duration like 90s, 30m, 2h or plain seconds (got "${value}")`);
  }
  return parsed;
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

/**
 * Checks the redact command's flags (commander's camelCase names) into its RedactOptions; every
 * problem is a usage error.
 * `--shard`, `--max-outage-wait` and `--lock-wait` may also come from `VREDACT_SHARD`,
 * `VREDACT_MAX_OUTAGE_WAIT` and `VREDACT_LOCK_WAIT` (the flag wins).
 */
export function parseRedactOptions(
  flags: Record<string, unknown>,
  env: NodeJS.ProcessEnv = {},
): RedactOptions {
  const waitTimeoutMs = durationOption(text(flags.waitTimeout), '--wait-timeout', DEFAULT_WAIT_TIMEOUT_MS);
  const minAgeText = text(flags.minAge);
  const minAge = {
    ms: durationOption(minAgeText, '--min-age', 0),
    label: minAgeText?.trim() ?? '0',
  };
  const outageFlag = text(flags.maxOutageWait);
  const maxOutageWaitMs = durationOption(
    outageFlag ?? (env.VREDACT_MAX_OUTAGE_WAIT?.trim() || undefined),
    outageFlag === undefined ? 'VREDACT_MAX_OUTAGE_WAIT' : '--max-outage-wait',
    DEFAULT_MAX_OUTAGE_WAIT_MS,
  );
  const lockWaitFlag = text(flags.lockWait);
  const lockWaitMs = durationOption(
    lockWaitFlag ?? (env.VREDACT_LOCK_WAIT?.trim() || undefined),
    lockWaitFlag === undefined ? 'VREDACT_LOCK_WAIT' : '--lock-wait',
    0,
  );
  const maxSizeText = text(flags.maxSize);
  let maxSize = DEFAULT_MAX_SIZE;
  if (maxSizeText !== undefined) {
    const parsed = parseSize(maxSizeText);
    if (parsed === undefined || parsed < 1) {
      throw new BadValueError(
        `--max-size must be a size of at least 1 byte, like 10485760, 10MiB or 500k (got "${maxSizeText}")`,
      );
    }
    maxSize = parsed;
  }
  const maxDurationText = text(flags.maxDuration);
  let maxDurationSec = DEFAULT_MAX_DURATION_SECONDS;
  if (maxDurationText !== undefined) {
    const parsed = parseDurationMs(maxDurationText);
    if (parsed === undefined || parsed <= 0) {
      throw new BadValueError(
        `--max-duration must be a number of seconds above 0, like 3600 or 60m (got "${maxDurationText}")`,
      );
    }
    maxDurationSec = parsed / 1000;
  }
  const toleranceText = text(flags.durationTolerance);
  let durationTolerance = DEFAULT_DURATION_TOLERANCE;
  if (toleranceText !== undefined) {
    const parsed = parseDurationTolerance(toleranceText);
    if (parsed === undefined) {
      throw new BadValueError(
        `--duration-tolerance must be like 3s, 10% or max(2s,5%) (got "${toleranceText}")`,
      );
    }
    durationTolerance = parsed;
  }
  refuseEmptyFlag(
    text(flags.filesFrom),
    '--files-from',
    'give it a file of paths, one a line, or - for standard input',
  );
  const shardFlag = text(flags.shard);
  const shardText = shardFlag ?? (env.VREDACT_SHARD?.trim() || undefined);
  return {
    filesFrom: text(flags.filesFrom),
    nullSeparated: flags.null === true,
    dryRun: flags.dryRun === true,
    overwrite: flags.overwrite === true,
    wait: flags.wait !== false,
    waitTimeoutMs,
    minAge,
    maxOutageWaitMs,
    lockWaitMs,
    shard:
      shardText === undefined
        ? undefined
        : parseShard(shardText, shardFlag === undefined ? 'VREDACT_SHARD' : '--shard'),
    maxSize,
    maxDurationSec,
    durationTolerance,
  };
}
