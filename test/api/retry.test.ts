import { describe, expect, test } from 'vitest';
import {
  AuthenticationError,
  BadRequestError,
  ConnectionError,
  errorForStatus,
  HostNotFoundError,
  InternalServerError,
  NotFoundError,
  PayloadTooLargeError,
  PermissionDeniedError,
  RateLimitError,
  StalledError,
} from '../../src/api/errors.js';
import { backoffDelay, parseRetryAfter, RetryableStatusError, withRetries } from '../../src/api/retry.js';
import { formatWait } from '../../src/api/wait-text.js';
import type { Clock } from '../../src/clock.js';

/** A clock that records the waits instead of waiting. */
function fakeClock(random = 0.5): Clock & { waits: number[] } {
  const waits: number[] = [];
  return {
    waits,
    now: () => Date.parse('2026-11-21T10:00:00Z'),
    sleep: async (ms) => void waits.push(ms),
    random: () => random,
  };
}

describe('errorForStatus', () => {
  test.each([
    [401, AuthenticationError, 3],
    [403, PermissionDeniedError, 3],
    [404, NotFoundError, 1],
    [413, PayloadTooLargeError, 1],
    [429, RateLimitError, 1],
    [500, InternalServerError, 1],
    [503, InternalServerError, 1],
    [400, BadRequestError, 1],
  ])('%i maps to its typed error and exit code', (status, type, exitCode) => {
    const error = errorForStatus(
      status,
      'listing jobs',
      JSON.stringify({ error: status, message: 'from service' }),
    );
    expect(error).toBeInstanceOf(type);
    expect(error.exitCode).toBe(exitCode);
    expect(error.status).toBe(status);
    expect(error.message).toContain(`listing jobs: the service answered ${status}`);
    expect(error.message).toContain('from service');
  });

  test('an HTML body still gives a clean one-line message with the status', () => {
    const error = errorForStatus(502, 'listing jobs', '<html><body><h1>502 Bad Gateway</h1></body></html>');
    expect(error.message).toBe('listing jobs: the service answered 502 Bad Gateway');
    expect(error.message).not.toContain('<');
  });

  test('an empty body gives the status alone', () => {
    expect(errorForStatus(599, 'x', '').message).toBe('x: the service answered 599');
  });

  test('a refused token hints at login', () => {
    expect(errorForStatus(403, 'x', '').hint).toMatch(/vredact login/);
  });
});

describe('parseRetryAfter', () => {
  const now = Date.parse('2026-11-21T10:00:00Z');
  test('seconds', () => expect(parseRetryAfter('3', now)).toBe(3000));
  test('an HTTP date', () => expect(parseRetryAfter('Sat, 21 Nov 2026 10:00:07 GMT', now)).toBe(7000));
  test('a date in the past is now', () =>
    expect(parseRetryAfter('Sat, 21 Nov 2026 09:00:00 GMT', now)).toBe(0));
  test('a wait past a year, or past any date, is a year: a clock can still show it', () => {
    const year = 366 * 24 * 3600 * 1000;
    expect(parseRetryAfter('99999999999999999999', now)).toBe(year);
    expect(parseRetryAfter('9'.repeat(400), now)).toBe(year);
    expect(parseRetryAfter('Fri, 31 Dec 9999 23:59:59 GMT', now)).toBe(year);
    expect(formatWait(year)).toBe('more than a year');
    expect(formatWait(3_600_000)).toBe('1h 0m');
  });
  test('absent or unreadable', () => {
    expect(parseRetryAfter(undefined, now)).toBeUndefined();
    expect(parseRetryAfter('soon', now)).toBeUndefined();
  });
});

describe('backoffDelay', () => {
  test('full jitter within an exponentially growing, capped window', () => {
    expect(backoffDelay(0, () => 0.999, 500, 30_000)).toBe(499);
    expect(backoffDelay(3, () => 0.5, 500, 30_000)).toBe(2000);
    expect(backoffDelay(20, () => 0.999, 500, 30_000)).toBe(29_970);
    expect(backoffDelay(5, () => 0, 500, 30_000)).toBe(0);
  });
});

describe('withRetries', () => {
  const unavailable = (retryAfterMs?: number) =>
    new RetryableStatusError(errorForStatus(503, 'x', ''), retryAfterMs);

  test('retries a retryable failure and returns the later success', async () => {
    const clock = fakeClock();
    let calls = 0;
    const result = await withRetries(
      async () => {
        calls++;
        if (calls < 3) throw unavailable();
        return 'ok';
      },
      { maxRetries: 4, clock },
    );
    expect(result).toBe('ok');
    expect(calls).toBe(3);
    expect(clock.waits).toEqual([250, 500]);
  });

  test('a request whose answer stalls is tried again once, whatever --max-retries, and fails saying it stalled twice', async () => {
    const clock = fakeClock();
    let calls = 0;
    const failure = withRetries(
      async () => {
        calls++;
        throw new StalledError(
          'downloading a.wav: host:443 stalled: its answer stopped coming',
          undefined,
          undefined,
          1,
          'try again later',
        );
      },
      { maxRetries: 4, clock },
    );
    await expect(failure).rejects.toBeInstanceOf(StalledError);
    await expect(failure).rejects.toThrow(
      /^downloading a\.wav: host:443 stalled: its answer stopped coming, twice$/,
    );
    await expect(failure).rejects.toMatchObject({ hint: 'try again later' });
    expect(calls).toBe(2);
  });

  test('a stall between other failures still counts once: the other failures are retried as ever', async () => {
    const clock = fakeClock();
    let calls = 0;
    const result = await withRetries(
      async () => {
        calls++;
        if (calls === 1) throw new StalledError('stalled');
        if (calls < 4) throw unavailable();
        return 'ok';
      },
      { maxRetries: 4, clock },
    );
    expect(result).toBe('ok');
    expect(calls).toBe(4);
  });

  test('honours Retry-After instead of the backoff', async () => {
    const clock = fakeClock();
    let calls = 0;
    await withRetries(
      async () => {
        if (calls++ === 0) throw unavailable(4000);
        return 1;
      },
      { maxRetries: 4, clock },
    );
    expect(clock.waits).toEqual([4000]);
  });

  test('gives up after maxRetries with the underlying typed error', async () => {
    const clock = fakeClock();
    let calls = 0;
    const failing = withRetries(
      async () => {
        calls++;
        throw unavailable();
      },
      { maxRetries: 2, clock },
    );
    await expect(failing).rejects.toBeInstanceOf(InternalServerError);
    expect(calls).toBe(3);
  });

  test('never retries a failure that is not retryable', async () => {
    let calls = 0;
    const failing = withRetries(
      async () => {
        calls++;
        throw errorForStatus(400, 'x', '');
      },
      { maxRetries: 4, clock: fakeClock() },
    );
    await expect(failing).rejects.toBeInstanceOf(BadRequestError);
    expect(calls).toBe(1);
  });

  test('a host that does not exist is not tried again, whatever the rule; a lookup failing for now is', async () => {
    let calls = 0;
    const gone = withRetries(
      async () => {
        calls++;
        throw new HostNotFoundError('listing jobs: the host nowhere.invalid was not found', true);
      },
      { maxRetries: 4, clock: fakeClock(), shouldRetry: () => true },
    );
    await expect(gone).rejects.toBeInstanceOf(HostNotFoundError);
    expect(calls).toBe(1);
    calls = 0;
    const lookup = withRetries(
      async () => {
        calls++;
        throw new ConnectionError(
          'listing jobs: cannot connect to a.test:443 (host name lookup failed)',
          true,
        );
      },
      { maxRetries: 4, clock: fakeClock() },
    );
    await expect(lookup).rejects.toBeInstanceOf(ConnectionError);
    expect(calls).toBe(5);
  });

  test('a custom rule limits retries to what is safe (uploads: refused connections only)', async () => {
    let calls = 0;
    const shouldRetry = (e: unknown) => e instanceof ConnectionError && e.refused;
    const failing = withRetries(
      async () => {
        calls++;
        throw new ConnectionError('reset', calls === 1);
      },
      { maxRetries: 4, clock: fakeClock(), shouldRetry },
    );
    await expect(failing).rejects.toThrow('reset');
    expect(calls).toBe(2);
  });
});
