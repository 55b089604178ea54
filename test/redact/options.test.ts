import { describe, expect, it } from 'vitest';
import { UsageError } from '../../src/errors.js';
import { parseDurationTolerance, parseRedactOptions, toleranceSeconds } from '../../src/redact/options.js';

describe('--duration-tolerance', () => {
  it('reads seconds, a percentage, or the larger of both', () => {
    expect(parseDurationTolerance('3s')).toEqual({ seconds: 3, fraction: 0 });
    expect(parseDurationTolerance('10%')).toEqual({ seconds: 0, fraction: 0.1 });
    expect(parseDurationTolerance('max(2s, 5%)')).toEqual({ seconds: 2, fraction: 0.05 });
    for (const bad of ['', 'soon', 'max(2s,5%,1s)', '-3s', '5%%'])
      expect(parseDurationTolerance(bad)).toBeUndefined();
  });

  it('defaults to the larger of 2 s and 5 %', () => {
    const { durationTolerance } = parseRedactOptions({});
    expect(toleranceSeconds(durationTolerance, 10)).toBe(2);
    expect(toleranceSeconds(durationTolerance, 600)).toBe(30);
    expect(() => parseRedactOptions({ durationTolerance: 'x' })).toThrow(UsageError);
  });
});

describe('--files-from', () => {
  it('given an empty value is a usage error, not a list left out (`--files-from "$LIST"`, LIST unset)', () => {
    expect(() => parseRedactOptions({ filesFrom: '' })).toThrowError(
      expect.objectContaining({ exitCode: 2, message: '--files-from was given an empty value' }),
    );
    expect(parseRedactOptions({ filesFrom: '-' }).filesFrom).toBe('-');
  });
});

describe('--shard', () => {
  it('comes from VREDACT_SHARD when the flag is not given; the flag wins', () => {
    expect(parseRedactOptions({}, { VREDACT_SHARD: '2/3' }).shard).toEqual({ index: 2, count: 3 });
    expect(parseRedactOptions({ shard: '1/3' }, { VREDACT_SHARD: '2/3' }).shard).toEqual({
      index: 1,
      count: 3,
    });
    expect(() => parseRedactOptions({}, { VREDACT_SHARD: '0/3' })).toThrow(UsageError);
  });

  it('a bad value is named as the user gave it: the variable, or the flag', () => {
    expect(() => parseRedactOptions({}, { VREDACT_SHARD: '9/2' })).toThrow(
      /^VREDACT_SHARD must look like i\/n/,
    );
    expect(() => parseRedactOptions({ shard: '9/2' }, { VREDACT_SHARD: '1/2' })).toThrow(
      /^--shard must look like i\/n/,
    );
  });
});

describe('--max-outage-wait', () => {
  it('defaults to 10 minutes; comes from VREDACT_MAX_OUTAGE_WAIT when the flag is not given; the flag wins', () => {
    expect(parseRedactOptions({}).maxOutageWaitMs).toBe(600_000);
    expect(parseRedactOptions({}, { VREDACT_MAX_OUTAGE_WAIT: '1h' }).maxOutageWaitMs).toBe(3_600_000);
    expect(
      parseRedactOptions({ maxOutageWait: '0' }, { VREDACT_MAX_OUTAGE_WAIT: '1h' }).maxOutageWaitMs,
    ).toBe(0);
  });

  it('a bad value is named as the user gave it', () => {
    expect(() => parseRedactOptions({}, { VREDACT_MAX_OUTAGE_WAIT: 'soon' })).toThrow(
      /^VREDACT_MAX_OUTAGE_WAIT must be a duration/,
    );
    expect(() => parseRedactOptions({ maxOutageWait: 'soon' })).toThrow(
      /^--max-outage-wait must be a duration/,
    );
  });
});

describe('--lock-wait', () => {
  it('defaults to 0 (refuse at once); comes from VREDACT_LOCK_WAIT when the flag is not given; the flag wins', () => {
    expect(parseRedactOptions({}).lockWaitMs).toBe(0);
    expect(parseRedactOptions({}, { VREDACT_LOCK_WAIT: '15m' }).lockWaitMs).toBe(900_000);
    expect(parseRedactOptions({ lockWait: '90' }, { VREDACT_LOCK_WAIT: '15m' }).lockWaitMs).toBe(90_000);
  });

  it('a bad value is named as the user gave it', () => {
    expect(() => parseRedactOptions({}, { VREDACT_LOCK_WAIT: 'a while' })).toThrow(
      /^VREDACT_LOCK_WAIT must be a duration/,
    );
    expect(() => parseRedactOptions({ lockWait: '-1m' })).toThrow(/^--lock-wait must be a duration/);
  });
});
