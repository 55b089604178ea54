/**
 * A batch rides out an outage of its service through the client's throttle: after the service has
 * answered, connect failures close the gate (window 1, backoff) without using up retries; past the
 * limit every request fails at once, as ServiceUnreachableError. A service that never answered fails
 * after one request's retries, as the same error, so the batch stops instead of failing file after file.
 */
import { describe, expect, test } from 'vitest';
import {
  ConnectionError,
  ConnectTimeoutError,
  DroppedBeforeHeardError,
  failsEveryRequest,
  HostNotFoundError,
  NotSentError,
  ServiceUnreachableError,
  TimeoutError,
  UnreadableAnswerError,
} from '../../src/api/errors.js';
import { uploadMayHaveBeenAccepted } from '../../src/api/upload-fate.js';
import { withRetries } from '../../src/api/retry.js';
import { Throttle } from '../../src/api/throttle.js';
import type { Clock } from '../../src/clock.js';
import { steppingClock as clockFrom } from '../helpers/stepping-clock.js';

const START = Date.parse('2026-11-27T04:12:00Z');

const refused = () =>
  new ConnectionError('redacting a.wav: cannot connect to 127.0.0.1:9 (connection refused)', true);

function batchThrottle(clock: Clock, maxOutageMs: number, events: string[] = []): Throttle {
  const throttle = new Throttle({ clock, maxConcurrency: 8, maxWaitMs: 30 * 60_000 });
  throttle.rideOutOutages({
    maxWaitMs: maxOutageMs,
    onBegan: (error) => events.push(`began: ${(error as Error).message}`),
    onEnded: (lastedMs) => events.push(`ended after ${lastedMs} ms`),
  });
  return throttle;
}

describe('riding out an outage', () => {
  test('after an answer, 30 refused connections then success cost no retry, at one request at a time, and the batch is told when it began and ended', async () => {
    const clock = clockFrom(START);
    const events: string[] = [];
    const throttle = batchThrottle(clock, 10 * 60_000, events);
    throttle.onSuccess();
    let calls = 0;
    const result = await withRetries(
      async () => {
        calls++;
        if (calls <= 30) throw refused();
        return 'done';
      },
      { maxRetries: 0, clock, throttle, toService: true, what: 'redacting a.wav' },
    );
    expect(result).toBe('done');
    expect(calls).toBe(31);
    expect(events[0]).toBe('began: redacting a.wav: cannot connect to 127.0.0.1:9 (connection refused)');
    expect(events[1]).toMatch(/^ended after \d+ ms$/);
    expect(events).toHaveLength(2);
    // The gate's backoff grows to 30 s: 30 attempts are minutes apart, not a tight loop.
    expect(clock.elapsed()).toBeGreaterThan(5 * 60_000);
    expect(throttle.window).toBeLessThanOrEqual(2);
  });

  test('a host name that no longer resolves after the service answered is ridden out as an outage; before, it ends the batch at once', async () => {
    const clock = clockFrom(START);
    const notFound = () => new HostNotFoundError('redacting a.wav: the host a.test was not found', true);
    const throttle = batchThrottle(clock, 10 * 60_000);
    throttle.onSuccess();
    let calls = 0;
    const options = { maxRetries: 0, clock, throttle, toService: true, what: 'redacting a.wav' };
    const result = await withRetries(async () => {
      if (++calls <= 3) throw notFound();
      return 'done';
    }, options);
    expect(result).toBe('done');
    expect(calls).toBe(4);

    const fresh = batchThrottle(clock, 10 * 60_000);
    calls = 0;
    const failure = await withRetries(
      async () => {
        calls++;
        throw notFound();
      },
      { ...options, maxRetries: 4, throttle: fresh },
    ).catch((e: unknown) => e);
    expect(calls).toBe(1);
    expect(failure).toBeInstanceOf(ServiceUnreachableError);
    expect((failure as Error).message).toBe('redacting a.wav: the host a.test was not found');
  });

  test('an outage past the limit fails the request, then every later one at once without a connection, as a failure every request meets', async () => {
    const clock = clockFrom(START);
    const throttle = batchThrottle(clock, 60_000);
    throttle.onSuccess();
    let calls = 0;
    const attempt = async () => {
      calls++;
      throw new ConnectTimeoutError('redacting a.wav: no connection to 10.0.0.1:443 within 30 s');
    };
    const options = { maxRetries: 4, clock, throttle, toService: true };
    const failure = await withRetries(attempt, { ...options, what: 'redacting a.wav' }).catch(
      (e: unknown) => e,
    );
    expect(failure).toBeInstanceOf(ServiceUnreachableError);
    expect(failsEveryRequest(failure)).toBe(true);
    expect((failure as Error).message).toMatch(
      /^redacting a\.wav: the service could not be reached for \d+s \(--max-outage-wait 1m\)$/,
    );
    expect(clock.elapsed()).toBeLessThanOrEqual(60_000);
    const before = calls;
    const next = await withRetries(attempt, { ...options, what: 'redacting b.wav' }).catch((e: unknown) => e);
    expect(next).toBeInstanceOf(ServiceUnreachableError);
    expect((next as Error).message).toMatch(/^redacting b\.wav: the service could not be reached/);
    expect(calls).toBe(before);
  });

  test('a service that never answered: the request fails after its own retries, as a failure every request meets, with its own words and hint', async () => {
    const clock = clockFrom(START);
    const throttle = batchThrottle(clock, 10 * 60_000);
    let calls = 0;
    const failure = await withRetries(
      async () => {
        calls++;
        throw refused();
      },
      { maxRetries: 2, clock, throttle, toService: true, what: 'redacting a.wav' },
    ).catch((e: unknown) => e);
    expect(calls).toBe(3);
    expect(failure).toBeInstanceOf(ServiceUnreachableError);
    expect((failure as Error).message).toBe(
      'redacting a.wav: cannot connect to 127.0.0.1:9 (connection refused)',
    );
    expect((failure as ServiceUnreachableError).hint).toContain('config get base-url');
  });

  test.each([
    [
      'took the upload and never answered',
      () => new TimeoutError('redacting a.wav: 127.0.0.1:9 did not answer in time (UND_ERR_HEADERS_TIMEOUT)'),
    ],
    [
      'answered in another protocol',
      () =>
        new UnreadableAnswerError('redacting a.wav: 127.0.0.1:9 answered something that is not HTTP/1.1 (x)'),
    ],
    [
      'closed the connection with no answer',
      () =>
        new ConnectionError('redacting a.wav: network error talking to 127.0.0.1:9 (UND_ERR_SOCKET)', false),
    ],
  ])(
    'a service that never answered, whose port %s: a failure every request meets, and the upload may have been kept',
    async (_, failed) => {
      const clock = clockFrom(START);
      const throttle = batchThrottle(clock, 10 * 60_000);
      const failure = await withRetries(
        async () => {
          throw failed();
        },
        { maxRetries: 0, clock, throttle, toService: true, what: 'redacting a.wav' },
      ).catch((e: unknown) => e);
      expect(failure).toBeInstanceOf(ServiceUnreachableError);
      expect(failsEveryRequest(failure)).toBe(true);
      expect(uploadMayHaveBeenAccepted(failure)).toBe(true);
      expect((failure as Error).message).toMatch(
        /^redacting a\.wav: .*; nothing at the base URL has answered in HTTP this run$/,
      );
    },
  );

  test('a connection closed with no answer is told apart, carrying the drop as it is once the service has answered; a timeout and another protocol are not', async () => {
    const clock = clockFrom(START);
    const finalOf = (failed: () => Error) =>
      withRetries(
        async () => {
          throw failed();
        },
        { maxRetries: 0, clock, throttle: batchThrottle(clock, 10 * 60_000), toService: true },
      ).catch((e: unknown) => e);
    const drop = new ConnectionError('redacting a.wav: the connection was reset', false);
    const failure = await finalOf(() => drop);
    expect(failure).toBeInstanceOf(DroppedBeforeHeardError);
    expect((failure as DroppedBeforeHeardError).dropped).toBe(drop);
    expect((failure as Error).message).toBe(
      'redacting a.wav: the connection was reset; nothing at the base URL has answered in HTTP this run',
    );
    for (const other of [
      () => new TimeoutError('redacting a.wav: did not answer in time (UND_ERR_HEADERS_TIMEOUT)'),
      () => new UnreadableAnswerError('redacting a.wav: answered something that is not HTTP/1.1 (x)'),
      refused,
    ])
      expect(await finalOf(other)).not.toBeInstanceOf(DroppedBeforeHeardError);
  });

  test("once the service has begun an answer (its headers came), a failure with no answer is that request's alone", async () => {
    const clock = clockFrom(START);
    const throttle = batchThrottle(clock, 10 * 60_000);
    throttle.onHeard();
    const failure = await withRetries(
      async () => {
        throw new TimeoutError(
          'redacting a.wav: 127.0.0.1:9 did not answer in time (UND_ERR_HEADERS_TIMEOUT)',
        );
      },
      { maxRetries: 0, clock, throttle, toService: true, what: 'redacting a.wav' },
    ).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(TimeoutError);
    expect(failsEveryRequest(failure)).toBe(false);
  });

  test('a one-off command (no riding) and a signed URL (another host) keep the ordinary retries and errors', async () => {
    const clock = clockFrom(START);
    const plain = new Throttle({ clock, maxConcurrency: 8, maxWaitMs: 60_000 });
    plain.onSuccess();
    const riding = batchThrottle(clock, 10 * 60_000);
    riding.onSuccess();
    for (const [throttle, toService] of [
      [plain, true],
      [riding, false],
    ] as const) {
      let calls = 0;
      const failure = await withRetries(
        async () => {
          calls++;
          throw refused();
        },
        { maxRetries: 2, clock, throttle, toService, what: 'downloading a.wav' },
      ).catch((e: unknown) => e);
      expect(calls).toBe(3);
      expect(failure).toBeInstanceOf(ConnectionError);
      expect(failure).not.toBeInstanceOf(ServiceUnreachableError);
    }
    expect(riding.window).toBe(8);
  });

  test('a connection dropped after it was made is no outage: an upload that may have been taken is not retried', async () => {
    const clock = clockFrom(START);
    const throttle = batchThrottle(clock, 10 * 60_000);
    throttle.onSuccess();
    let calls = 0;
    const failure = await withRetries(
      async () => {
        calls++;
        throw new ConnectionError('redacting a.wav: the connection was reset', false);
      },
      {
        maxRetries: 4,
        clock,
        throttle,
        toService: true,
        what: 'redacting a.wav',
        shouldRetry: (e) => e instanceof ConnectionError && e.refused,
      },
    ).catch((e: unknown) => e);
    expect(calls).toBe(1);
    expect(failure).not.toBeInstanceOf(ServiceUnreachableError);
    expect(throttle.window).toBe(8);
  });

  test('stopWaiting gives a request up while it waits at the gate, as NotSentError; an attempt under way goes on', async () => {
    const clock = clockFrom(START);
    const throttle = batchThrottle(clock, 10 * 60_000);
    throttle.onSuccess();
    const stop = new AbortController();
    let calls = 0;
    const failure = await withRetries(
      async () => {
        calls++;
        // The batch's first Ctrl-C comes while this attempt is under way: it is not aborted.
        stop.abort(new Error('interrupted'));
        throw refused();
      },
      { maxRetries: 4, clock, throttle, toService: true, stopWaiting: stop.signal, what: 'redacting a.wav' },
    ).catch((e: unknown) => e);
    expect(calls).toBe(1);
    expect(failure).toBeInstanceOf(NotSentError);
    expect((failure as Error).message).toBe('redacting a.wav: not sent: the batch is stopping');
    const attempt = async () => 'sent';
    const stopped = withRetries(attempt, { maxRetries: 4, clock, stopWaiting: stop.signal, throttle });
    await expect(stopped).rejects.toBeInstanceOf(NotSentError);
  });
});
