import { describe, expect, it } from 'vitest';
import type { JobSink } from '../../src/api/client-types.js';
import {
  CertificateError,
  ConnectionError,
  ProxyRefusedError,
  ServiceUnreachableError,
  ThrottleGivenUpError,
} from '../../src/api/errors.js';
import { failsForAMoment } from '../../src/api/retry.js';
import { AcceptedJobs } from '../../src/redact/accepted-jobs.js';
import { steppingClock } from '../helpers/stepping-clock.js';

const START = Date.parse('2026-11-21T02:00:00Z');
const TWO_HOURS_MS = 2 * 3_600_000;

/** A finder whose every listing fails with `failure`; counts its listings and its warnings. */
function failingFinder(failure: Error) {
  const seen = { listings: 0, warnings: [] as string[] };
  const finder = new AcceptedJobs({
    clock: steppingClock(START),
    stop: new AbortController().signal,
    debug: () => {},
    warn: (message) => seen.warnings.push(message),
    isStop: () => false,
    listJobs: async <S extends JobSink>(): Promise<S> => {
      seen.listings++;
      throw failure;
    },
    jobContent: async () => [],
  });
  return { finder, seen };
}

// What the run gave up on fails every later request at once: a look-up meeting it would go on
// meeting it each round until --wait-timeout (two hours by default), as polls used to.
const givenUp = [
  new ThrottleGivenUpError('listing jobs', 'the service asked to wait 1h 0m; try again then'),
  new ServiceUnreachableError('listing jobs: the service could not be reached for 10m'),
  new CertificateError('listing jobs: the TLS certificate of 127.0.0.1:1 is not trusted'),
  new ProxyRefusedError('listing jobs: the proxy refused a tunnel to 127.0.0.1:1 (407)'),
];

describe('AcceptedJobs, a listing meeting what the run gave up on', () => {
  it.each(givenUp.map((error) => [error.name, error] as const))(
    'ends every wait with the error of a %s at once, not a round each backoff until --wait-timeout',
    async (_name, failure) => {
      const { finder, seen } = failingFinder(failure);
      const waits = ['a.1.wav', 'b.2.wav'].map((name) => finder.find(name, START, START + TWO_HOURS_MS));
      for (const wait of waits) await expect(wait).rejects.toBe(failure);
      expect(seen.listings).toBeLessThanOrEqual(2);
      // Said once, in each upload's own reason (find-accepted.ts), not as a warning of rounds to come.
      expect(seen.warnings).toEqual([]);
    },
  );

  it('still tries again after a failure of a moment (a connection that dropped)', async () => {
    const { finder, seen } = failingFinder(new ConnectionError('listing jobs: connection reset', false));
    const lookUp = await finder.find('a.1.wav', START, START + 120_000);
    expect(lookUp.job).toBeUndefined();
    expect(seen.listings).toBeGreaterThan(2);
    expect(seen.warnings).toHaveLength(1);
  });

  it('the rule itself: what fails every request is no failure of a moment, even with a retryable status', () => {
    for (const error of givenUp) expect(failsForAMoment(error)).toBe(false);
    expect(failsForAMoment(new ConnectionError('x', false))).toBe(true);
  });
});
