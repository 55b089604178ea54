import { describe, expect, test } from 'vitest';
import { RateLimitError, errorForStatus } from '../../src/api/errors.js';
import { RetryableStatusError, withRetries } from '../../src/api/retry.js';
import { Throttle } from '../../src/api/throttle.js';
import { waitIsTold } from '../../src/api/wait-text.js';
import type { Clock } from '../../src/clock.js';
import { steppingClock as clockFrom } from '../helpers/stepping-clock.js';

const START = Date.parse('2026-11-22T04:12:00Z');

function throttled(retryAfterMs: number | undefined, status = 429): RetryableStatusError {
  return new RetryableStatusError(
    errorForStatus(status, 'listing jobs', '{"message":"slow down"}'),
    retryAfterMs,
  );
}

describe('Throttle: one gate and an adaptive window', () => {
  test('a throttle answer closes the gate for the wait asked and cuts the window; successes grow it back slowly', async () => {
    const clock = clockFrom(START);
    const throttle = new Throttle({ clock, maxConcurrency: 8, maxWaitMs: 60_000 });
    expect(throttle.window).toBe(8);
    // The answer that closes the gate starts a wait (said once); one met while it is closed, none.
    expect(throttle.onThrottle(2000)).toEqual({ retry: true, waitStartedMs: 2000 });
    expect(throttle.window).toBe(4);
    expect(throttle.onThrottle(2000)).toEqual({ retry: true });
    throttle.onThrottle(2000);
    throttle.onThrottle(2000);
    expect(throttle.window).toBe(1);
    const release = await throttle.acquire('listing jobs');
    expect(clock.elapsed()).toBe(2000);
    release();
    for (let i = 0; i < 3; i++) throttle.onSuccess();
    expect(throttle.window).toBe(3);
    for (let i = 0; i < 100; i++) throttle.onSuccess();
    expect(throttle.window).toBe(8);
  });

  test('passGate waits for the gate but takes no slot: it passes while the window is full, and throttles still cost no retry', async () => {
    const clock = clockFrom(START);
    const throttle = new Throttle({ clock, maxConcurrency: 1, maxWaitMs: 60_000 });
    const held = await throttle.acquire('downloading a.wav');
    // The listing that feeds the downloads is not held behind them.
    (await throttle.passGate('reading job 1'))();
    let calls = 0;
    const result = await withRetries(
      async () => {
        if (++calls <= 5) throw throttled(1000);
        return 'listed';
      },
      { maxRetries: 0, clock, throttle, holdsSlot: false, what: 'reading job 1' },
    );
    expect(result).toBe('listed');
    expect(clock.elapsed()).toBe(5000);
    held();
  });
});

describe('withRetries through a throttle', () => {
  test('throttled attempts do not use up retries: 40 answers of 429 then success, with --max-retries 0', async () => {
    const clock = clockFrom(START);
    const throttle = new Throttle({ clock, maxConcurrency: 4, maxWaitMs: 30 * 60_000 });
    let calls = 0;
    const result = await withRetries(
      async () => {
        calls++;
        if (calls <= 40) throw throttled(1000);
        return 'ok';
      },
      { maxRetries: 0, clock, throttle, what: 'listing jobs' },
    );
    expect(result).toBe('ok');
    expect(calls).toBe(41);
    // One attempt per Retry-After period: the gate paced them.
    expect(clock.elapsed()).toBe(40_000);
  });

  test('a long stretch of short waits is said: first after 10 s of throttling, then each time it has doubled, at most every 5 min; an answer starts a new stretch', async () => {
    const clock = clockFrom(START);
    const throttle = new Throttle({ clock, maxConcurrency: 4, maxWaitMs: 60 * 60_000 });
    const said: number[] = [];
    const listing = (throttles: number) => {
      let calls = 0;
      return withRetries(
        async () => {
          if (++calls <= throttles) throw throttled(1000);
          return 'ok';
        },
        {
          maxRetries: 0,
          clock,
          throttle,
          what: 'listing jobs',
          onThrottleStretch: (_error, lastedMs) => said.push(lastedMs),
        },
      );
    };
    // Half an hour of `Retry-After: 1`: ten lines, not 1,800.
    await listing(30 * 60);
    expect(said).toEqual([
      10_000, 20_000, 40_000, 80_000, 160_000, 320_000, 620_000, 920_000, 1_220_000, 1_520_000,
    ]);
    said.length = 0;
    await listing(15);
    expect(said).toEqual([10_000]);
  });

  test('once a stretch has been told, only a wait over 10 s is said one by one: half an hour of Retry-After: 2 is not 900 lines', async () => {
    const clock = clockFrom(START);
    const throttle = new Throttle({ clock, maxConcurrency: 4, maxWaitMs: 60 * 60_000 });
    const waits: number[] = [];
    const stretches: number[] = [];
    let calls = 0;
    await withRetries(
      async () => {
        calls++;
        if (calls <= 30 * 30) throw throttled(2000);
        if (calls <= 30 * 30 + 3) throw throttled(15_000);
        return 'ok';
      },
      {
        maxRetries: 0,
        clock,
        throttle,
        what: 'listing jobs',
        onThrottleWait: (_error, waitMs, stretchTold) => {
          if (waitIsTold(waitMs, stretchTold)) waits.push(waitMs);
        },
        onThrottleStretch: (_error, lastedMs) => stretches.push(lastedMs),
      },
    );
    // The 2-s waits until the stretch is first told (after 10 s), then the 15-s ones alone.
    expect(waits).toEqual([2000, 2000, 2000, 2000, 2000, 2000, 15_000, 15_000, 15_000]);
    expect(stretches.length).toBeGreaterThanOrEqual(10);
  });

  test('a throttle answer closes the gate before its slot is freed: the request waiting for it goes after the wait', async () => {
    // Time moves on only after everything already due has run: a request let through too early
    // starts before the clock reaches the end of the wait.
    const stepping = clockFrom(START);
    let later = 0;
    const clock: Clock = {
      ...stepping,
      now: () => stepping.now() + later,
      sleep: (ms) =>
        new Promise<void>((resolve) =>
          setImmediate(() => {
            later += ms;
            resolve();
          }),
        ),
    };
    const elapsed = () => clock.now() - START;
    const throttle = new Throttle({ clock, maxConcurrency: 1, maxWaitMs: 60_000 });
    const starts: string[] = [];
    let aCalls = 0;
    const a = withRetries(
      async () => {
        starts.push(`a@${elapsed()}`);
        if (++aCalls === 1) throw throttled(1000);
        return 'a';
      },
      { maxRetries: 0, clock, throttle },
    );
    const b = withRetries(
      async () => {
        starts.push(`b@${elapsed()}`);
        return 'b';
      },
      { maxRetries: 0, clock, throttle },
    );
    expect(await Promise.all([a, b])).toEqual(['a', 'b']);
    // b waited in the window behind a's first attempt; a's 429 must not hand it the slot before the wait.
    expect(starts[0]).toBe('a@0');
    expect(starts.slice(1).every((start) => Number(start.split('@')[1]) >= 1000)).toBe(true);
  });

  test('a 429 without Retry-After backs off, growing to 30 s, and still costs no retry', async () => {
    const clock = clockFrom(START);
    const throttle = new Throttle({ clock, maxConcurrency: 4, maxWaitMs: 30 * 60_000 });
    let calls = 0;
    await withRetries(
      async () => {
        if (++calls <= 8) throw throttled(undefined);
        return 'ok';
      },
      { maxRetries: 0, clock, throttle },
    );
    expect(clock.elapsed()).toBeGreaterThan(60_000);
  });

  test('a Retry-After of no wait (0, or a date already past) backs off as if none was named: the service is not hammered', async () => {
    for (const asked of [0, undefined]) {
      const clock = clockFrom(START);
      const throttle = new Throttle({ clock, maxConcurrency: 4, maxWaitMs: 30 * 60_000 });
      let calls = 0;
      await withRetries(
        async () => {
          if (++calls <= 8) throw throttled(asked);
          return 'ok';
        },
        { maxRetries: 0, clock, throttle },
      );
      expect(calls).toBe(9);
      expect(clock.elapsed()).toBeGreaterThan(60_000);
    }
  });

  test('continuous throttling fails after --max-throttle-wait, naming it', async () => {
    const clock = clockFrom(START);
    const throttle = new Throttle({ clock, maxConcurrency: 4, maxWaitMs: 60_000 });
    let calls = 0;
    const failure = await withRetries(
      async () => {
        calls++;
        throw throttled(5000);
      },
      { maxRetries: 4, clock, throttle, what: 'listing jobs' },
    ).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(RateLimitError);
    expect((failure as Error).message).toMatch(
      /^listing jobs: the service has been throttling requests for 1m/,
    );
    expect((failure as Error).message).toContain('--max-throttle-wait 1m');
    expect(clock.elapsed()).toBeLessThanOrEqual(60_000);
    expect(calls).toBe(13);
  });

  test('a Retry-After beyond --max-throttle-wait fails at once, naming the wait and the time; later requests are not sent', async () => {
    const clock = clockFrom(START);
    const throttle = new Throttle({ clock, maxConcurrency: 4, maxWaitMs: 30 * 60_000 });
    let calls = 0;
    const attempt = async () => {
      calls++;
      throw throttled(3600_000);
    };
    const failure = await withRetries(attempt, {
      maxRetries: 4,
      clock,
      throttle,
      what: 'redacting a.wav',
    }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(RateLimitError);
    expect((failure as Error).message).toBe(
      'redacting a.wav: the service asked to wait 1h 0m (until 2026-11-22 05:12 UTC); try again then',
    );
    const next = await withRetries(attempt, {
      maxRetries: 4,
      clock,
      throttle,
      what: 'redacting b.wav',
    }).catch((error: unknown) => error);
    expect((next as Error).message).toContain('redacting b.wav: the service asked to wait 1h 0m');
    expect(calls).toBe(1);
  });

  test('a 503 with Retry-After is a throttle; a bare 503 uses up retries', async () => {
    const clock = clockFrom(START);
    const throttle = new Throttle({ clock, maxConcurrency: 4, maxWaitMs: 30 * 60_000 });
    let calls = 0;
    await withRetries(
      async () => {
        if (++calls <= 5) throw throttled(1000, 503);
        return 'ok';
      },
      { maxRetries: 0, clock, throttle },
    );
    expect(calls).toBe(6);
    calls = 0;
    const failure = await withRetries(
      async () => {
        calls++;
        throw throttled(undefined, 503);
      },
      { maxRetries: 2, clock, throttle },
    ).catch((error: unknown) => error);
    expect((failure as { status?: number }).status).toBe(503);
    expect(calls).toBe(3);
  });
});
