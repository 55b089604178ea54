import { describe, expect, test } from 'vitest';
import type { Job } from '../../../src/api/schemas.js';
import { NewestJobs } from '../../../src/commands/jobs/newest-jobs.js';

const job = (job_id: string, created_at: string): Job => ({ job_id, token: '', created_at });

function ids(newest: NewestJobs): string[] {
  return newest.jobs().map((j) => j.job_id);
}

describe('NewestJobs', () => {
  const listing = [
    job('b', '2026-11-02T00:00:00Z'),
    job('odd', 'job 5'),
    job('d', '2026-11-04T00:00:00Z'),
    job('a', '2026-11-01T00:00:00Z'),
    job('c1', '2026-11-03T00:00:00Z'),
    job('c2', '2026-11-03T00:00:00Z'),
    job('e', '2026-11-05T00:00:00+02:00'),
  ];

  test('without a limit: every job, newest first, as listed within one time, an unreadable time last', () => {
    const newest = new NewestJobs();
    for (const j of listing) newest.add(j);
    expect(ids(newest)).toEqual(['e', 'd', 'c1', 'c2', 'b', 'a', 'odd']);
    expect(newest.seen).toBe(7);
  });

  test('with a limit: the same first jobs as the whole sort, for every limit', () => {
    const whole = ['e', 'd', 'c1', 'c2', 'b', 'a', 'odd'];
    for (let limit = 1; limit <= 8; limit++) {
      const newest = new NewestJobs(limit);
      for (const j of listing) newest.add(j);
      expect(ids(newest), `limit ${limit}`).toEqual(whole.slice(0, limit));
      expect(newest.seen).toBe(7);
    }
  });

  test('keeps the newest of a long listing in any order', () => {
    const count = 5000;
    const newest = new NewestJobs(10);
    for (let i = 0; i < count; i++) {
      const n = (i * 7919) % count;
      newest.add(job(String(n), new Date(Date.UTC(2026, 0, 1) + n * 1000).toISOString()));
    }
    expect(ids(newest)).toEqual(Array.from({ length: 10 }, (_, i) => String(count - 1 - i)));
  });

  describe('a listing of zone-less times among times with a zone and epoch numbers', () => {
    const HOUR = 3_600_000;
    /** West of UTC, the zone-less times are of a leap day, 2028-02-29. */
    const NOW = Date.parse('2028-03-01T01:00:00.000Z');
    /** A zone-less local time `offsetMs` east of UTC for the instant `ms`, to the minute (no seconds). */
    const local = (ms: number, offsetMs: number) => new Date(ms + offsetMs).toISOString().slice(0, 16);
    const at = (minutesAgo: number) => NOW - minutesAgo * 60_000;

    for (const [zone, offsetMs] of [
      ['UTC-3:30', -3.5 * HOUR],
      ['UTC+5:45', 5.75 * HOUR],
      ['UTC-12', -12 * HOUR],
      ['UTC+14', 14 * HOUR],
    ] as const) {
      const listing = [
        job('zoned-60', new Date(at(60)).toISOString()),
        job('local-30', local(at(30), offsetMs)),
        job('epoch-120', String(Math.floor(at(120) / 1000))),
        job('local-1', local(at(1), offsetMs)),
        job('odd', 'job 5'),
        job('offset-10', new Date(at(10)).toISOString().replace('Z', '+00:00')),
        job('local-180', `${local(at(180), offsetMs)}:00.250`),
      ];
      const made = ['local-1', 'offset-10', 'local-30', 'zoned-60', 'epoch-120', 'local-180', 'odd'];

      test(`a service at ${zone}: by when each job was made, with and without a limit`, () => {
        for (const limit of [Number.POSITIVE_INFINITY, 1, 2, 3, 4, 7]) {
          const newest = new NewestJobs(limit, () => NOW);
          for (const j of listing) newest.add(j);
          expect(ids(newest), `limit ${limit}`).toEqual(made.slice(0, limit));
        }
      });
    }

    test('zone-less times all further ahead than any zone (a wrong year): read as they are, as before', () => {
      const newest = new NewestJobs(Number.POSITIVE_INFINITY, () => NOW);
      for (const j of [job('z', new Date(at(5)).toISOString()), job('far', '2099-01-01T00:00:00')])
        newest.add(j);
      expect(ids(newest)).toEqual(['far', 'z']);
    });
  });
});
