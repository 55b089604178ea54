import { describe, expect, test } from 'vitest';
import { parseRateLimit, RateLimiter } from '../../src/sandbox/rate-limit.js';

describe('sandbox --rate-limit', () => {
  test('reads n/period', () => {
    expect(parseRateLimit('5/1s')).toEqual({ requests: 5, periodMs: 1000 });
    expect(parseRateLimit('100/1m')).toEqual({ requests: 100, periodMs: 60_000 });
    expect(parseRateLimit('10/s')).toEqual({ requests: 10, periodMs: 1000 });
    expect(parseRateLimit('2/500ms')).toEqual({ requests: 2, periodMs: 500 });
    for (const bad of ['5', '0/1s', '5/1', 'x/1s', '5/0s']) expect(parseRateLimit(bad)).toBeUndefined();
  });

  test('per token, a sliding window; Retry-After is the whole seconds until a place frees', () => {
    let now = 0;
    const limiter = new RateLimiter({ requests: 2, periodMs: 10_000 }, () => now);
    expect(limiter.take('a')).toBeUndefined();
    now = 1000;
    expect(limiter.take('a')).toBeUndefined();
    expect(limiter.take('b')).toBeUndefined();
    now = 2500;
    expect(limiter.take('a')).toBe(8);
    now = 10_001;
    expect(limiter.take('a')).toBeUndefined();
    expect(limiter.take('a')).toBe(1);
    expect(limiter.throttled).toBe(2);
  });
});
