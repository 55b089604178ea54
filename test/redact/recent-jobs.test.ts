/**
 * The jobs the look-up of interrupted uploads keeps as the service's listing streams by. What these
 * tests prove: the sink's own holdings (the jobs it keeps and those waiting for the journals) stay
 * under the cap plus one batch however long the listing, and what it keeps is what reading the whole
 * listing at once kept. That the process's memory stays flat is the end-to-end test's (a run in a heap
 * too small for the listing, test/e2e/hostile-big-list.test.ts) and the README's figures.
 */
import { describe, expect, it } from 'vitest';
import type { Job } from '../../src/api/schemas.js';
import { timestampMs } from '../../src/api/timestamps.js';
import {
  JOURNAL_BATCH,
  RECONCILE_MAX_READS,
  RECONCILE_SKEW_MS,
  RecentJobs,
} from '../../src/redact/recent-jobs.js';

const T = Date.parse('2026-11-21T02:00:00.000Z');
const LISTED = 1_000_000;
/** Jobs in a chunk of the answer. */
const CHUNK = 500;

/** Job i of a long listing: three in four made a day before the upload, some undated, the rest after it. */
function jobAt(i: number): Job {
  const created =
    i % 4 !== 0
      ? new Date(T - 86_400_000).toISOString()
      : i % 1000 === 4
        ? ''
        : new Date(T - RECONCILE_SKEW_MS + ((i * 7919) % LISTED)).toISOString();
  return { job_id: `job-${i}`, token: 't', created_at: created };
}

/** Which jobs the journals name: one in twelve. */
const isNamed = (id: string) => Number(id.slice(4)) % 12 === 0;

/**
 * The rule as it was applied to a listing held whole: the recent jobs the journals do not name,
 * oldest first (undated last, as listed), the first RECONCILE_MAX_READS of them.
 */
function heldWhole(count: number): { ids: string[]; recent: number } {
  const recent: { id: string; ms: number }[] = [];
  for (let i = 0; i < count; i++) {
    const job = jobAt(i);
    const ms = job.created_at ? (timestampMs(job.created_at) as number) : Number.POSITIVE_INFINITY;
    if (ms >= T - RECONCILE_SKEW_MS && !isNamed(job.job_id)) recent.push({ id: job.job_id, ms });
  }
  const sorted = recent.sort((a, b) => (a.ms === b.ms ? 0 : a.ms - b.ms));
  return { ids: sorted.slice(0, RECONCILE_MAX_READS).map((one) => one.id), recent: recent.length };
}

describe('the recent jobs of a listing', () => {
  it('holds at most the cap and one batch while 1,000,000 jobs stream by, and keeps what the whole listing kept', async () => {
    const asked: number[] = [];
    const sink = new RecentJobs(T, async (ids) => {
      asked.push(ids.size);
      return new Set([...ids].filter(isNamed));
    });
    let mostHeld = 0;
    for (let i = 0; i < LISTED; i++) {
      sink.add(jobAt(i));
      mostHeld = Math.max(mostHeld, sink.held);
      // As the client drains it: after each chunk of the answer.
      if (i % CHUNK === CHUNK - 1) await sink.drain();
    }
    const found = await sink.found();
    const expected = heldWhole(LISTED);
    expect(sink.listed).toBe(LISTED);
    expect(found.jobs.map((job) => job.job_id)).toEqual(expected.ids);
    expect(found.recent).toBe(expected.recent);
    expect(mostHeld).toBeLessThanOrEqual(RECONCILE_MAX_READS + JOURNAL_BATCH + CHUNK);
    // The journals are asked about every recent job, a batch at a time.
    expect(asked.every((size) => size <= JOURNAL_BATCH + CHUNK)).toBe(true);
    expect(asked.reduce((sum, size) => sum + size, 0)).toBe(LISTED / 4);
  }, 60_000);

  it('reads a job listed twice once', async () => {
    const sink = new RecentJobs(T, async () => new Set(), { maxReads: 10, batch: 2 });
    for (const id of ['a', 'b', 'a', 'c', 'b']) {
      sink.add({ job_id: id, token: 't', created_at: new Date(T).toISOString() });
      await sink.drain();
    }
    expect((await sink.found()).jobs.map((job) => job.job_id)).toEqual(['a', 'b', 'c']);
  });

  it('tells of a journal that cannot be read once the listing is over, and holds nothing more meanwhile', async () => {
    const failure = new Error('EIO: i/o error, read');
    const sink = new RecentJobs(
      T,
      async () => {
        throw failure;
      },
      { maxReads: 10, batch: 2 },
    );
    for (let i = 0; i < 6; i++) {
      sink.add({ job_id: `j${i}`, token: 't', created_at: new Date(T + i).toISOString() });
      await sink.drain();
    }
    expect(sink.listed).toBe(6);
    expect(sink.held).toBe(0);
    await expect(sink.found()).rejects.toBe(failure);
  });

  it('reads an epoch created_at as jobs list does: an older job is passed over, a newer one read in its time, `7` as undated', async () => {
    const sink = new RecentJobs(T, async () => new Set());
    const seconds = (ms: number) => String(Math.floor(ms / 1000));
    const listed: Array<[string, string]> = [
      ['undated', '7'],
      ['newer-ms', String(T + 60_000)],
      ['day-old', seconds(T - 86_400_000)],
      ['newer-s', seconds(T + 1000)],
      ['day-old-ms', String(T - 86_400_000)],
    ];
    for (const [job_id, created_at] of listed) sink.add({ job_id, token: 't', created_at });
    const found = await sink.found();
    // Before, an epoch time was read as undated: the day-old jobs were read too, after every dated one.
    expect(found.jobs.map((job) => job.job_id)).toEqual(['newer-s', 'newer-ms', 'undated']);
    expect(found.recent).toBe(3);
  });
});
