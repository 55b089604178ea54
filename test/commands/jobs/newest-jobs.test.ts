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
});
