/**
 * The window of the look-up for uploads whose answer never came, where the service writes its times
 * without a zone (its local time, at an offset nothing tells): such times are placed against each
 * other and against spans of this machine's clock, never read as UTC.
 */
import { describe, expect, it } from 'vitest';
import type { Job, JobContentItem } from '../../src/api/schemas.js';
import { listedTime } from '../../src/api/timestamps.js';
import { LookUpWindow, RECONCILE_SKEW_MS, ZONE_SHIFT_MS } from '../../src/redact/look-up-window.js';
import { indexContents, matchUploads, recentCount } from '../../src/redact/reconcile.js';
import { RecentJobs } from '../../src/redact/recent-jobs.js';

const HOUR = 3_600_000;
/** When the upload began, and when the listing is received (this machine's clock). */
const SINCE = Date.parse('2026-11-21T10:00:00.000Z');
const NOW = SINCE + 20 * 60_000;

/** A zone-less local time of a zone `offsetMs` east of UTC, for the instant `ms`. */
const zoneless = (ms: number, offsetMs: number) => new Date(ms + offsetMs).toISOString().slice(0, 19);
const job = (job_id: string, created_at: string): Job => ({ job_id, token: 't', created_at });

/** The ids a listing's sink keeps to read, the listing received at NOW. */
async function kept(jobs: Job[], options: { maxReads?: number; batch?: number } = {}) {
  const sink = new RecentJobs(SINCE, async () => new Set(), { now: () => NOW, ...options });
  for (const one of jobs) {
    sink.add(one);
    await sink.drain();
  }
  const found = await sink.found();
  return { ids: found.jobs.map((one) => one.job_id), recent: found.recent, sink };
}

/** A day of jobs, one every ten minutes up to NOW, newest first, and the upload's own two seconds after it began. */
function dayOfJobs(offsetMs: number): Job[] {
  const jobs: Job[] = [];
  for (let ms = NOW - 60_000; ms > NOW - 24 * HOUR; ms -= 10 * 60_000)
    jobs.push(job(`at-${(ms - SINCE) / 60_000}`, zoneless(ms, offsetMs)));
  jobs.splice(2, 0, job('upload', zoneless(SINCE + 2000, offsetMs)));
  return jobs;
}

describe('the look-up window', () => {
  it('places a zoned time against the upload, less the skew; a zone-less one only once one is listed', () => {
    const window = new LookUpWindow();
    expect(window.startMs(false, SINCE)).toBe(SINCE - RECONCILE_SKEW_MS);
    expect(window.startMs(true, SINCE)).toBeUndefined();
    expect(window.madeAfterMs(listedTime(zoneless(SINCE, -5 * HOUR)), SINCE)).toBeUndefined();
    window.see(listedTime(zoneless(NOW, -5 * HOUR)), NOW);
    expect(window.startMs(true, SINCE)).toBe(SINCE - 5 * HOUR - RECONCILE_SKEW_MS - ZONE_SHIFT_MS);
  });

  for (const [zone, offsetMs] of [
    ['UTC-5', -5 * HOUR],
    ['UTC-12', -12 * HOUR],
    ['UTC+9', 9 * HOUR],
    ['UTC+14', 14 * HOUR],
    ['UTC+5:45', 5.75 * HOUR],
    ['UTC-3:30', -3.5 * HOUR],
    ['UTC+13:45', 13.75 * HOUR],
    // Every zone-less time ahead of this machine's clock, by less than 14 h and the skew.
    ["UTC+14, its clock 4 min ahead of this machine's", 14 * HOUR + 4 * 60_000],
  ] as const) {
    it(`${zone}, zone-less: keeps the upload's job and those of the run's span (and the margins), not the day's`, async () => {
      const { ids } = await kept(dayOfJobs(offsetMs));
      // The newest (received a minute after it was made) places the window: since the upload began,
      // less the skew and the hour of a clock put forward, so from 66 min before it.
      expect(ids).toEqual([
        'at--61',
        'at--51',
        'at--41',
        'at--31',
        'at--21',
        'at--11',
        'at--1',
        'upload',
        'at-9',
        'at-19',
      ]);
    });
  }

  it("keeps the upload's job when the clock was put forward an hour after it (daylight saving time)", async () => {
    // Put forward five minutes after the upload began: the later jobs read UTC-4.
    const jobs = dayOfJobs(-5 * HOUR).map((one) => {
      const minutes = Number(one.job_id.slice(3));
      return minutes > 5 ? job(one.job_id, zoneless(SINCE + minutes * 60_000, -4 * HOUR)) : one;
    });
    expect((await kept(jobs)).ids).toContain('upload');
  });

  it('an idle account whose newest job is days old, the upload not taken: no job of its last day of work is read', async () => {
    // A job every ten minutes for a day, the newest three days before the upload: no offset places
    // them after it (the westernmost zone is UTC-12). They were read, up to the cap, under a warning.
    const jobs: Job[] = [];
    for (let ms = SINCE - 72 * HOUR; ms > SINCE - 96 * HOUR; ms -= 10 * 60_000)
      jobs.push(job(`at-${(ms - SINCE) / 60_000}`, zoneless(ms, -5 * HOUR)));
    expect(await kept(jobs)).toMatchObject({ ids: [], recent: 0 });
    // Made 13 hours before the upload's start (as UTC): a service at UTC-12 may have made it since.
    const west = [job('west', zoneless(SINCE - 12 * HOUR - 30 * 60_000, 0)), ...jobs];
    expect((await kept(west)).ids).toEqual(['west']);
  });

  it('a zone-less time further ahead than any zone (a wrong year) does not shut the real job out', async () => {
    const jobs = [job('wrong-year', '2099-11-21T10:00:00'), ...dayOfJobs(-5 * HOUR)];
    const { ids } = await kept(jobs);
    expect(ids).toContain('upload');
    expect(ids).not.toContain('at--71');
  });

  it('a listing of both kinds: each placed by its own kind, the earliest made (as each time tells) read first', async () => {
    const jobs = [
      job('zoned-old', new Date(SINCE - HOUR).toISOString()),
      job('zoned-new', new Date(SINCE + 60_000).toISOString()),
      job('epoch-new', String(Math.floor((SINCE + 30_000) / 1000))),
      job('undated', ''),
      ...dayOfJobs(-5 * HOUR).slice(0, 8),
    ];
    const { ids } = await kept(jobs);
    // A zone-less time as though the newest job was made as it was received: a minute later than it was.
    expect(ids).toEqual([
      'at--41',
      'at--31',
      'at--21',
      'at--11',
      'at--1',
      'epoch-new',
      'zoned-new',
      'upload',
      'at-9',
      'at-19',
      'undated',
    ]);
  });

  it('a listing oldest first (the start rises as it goes): reads the oldest of the final window, up to the cap', async () => {
    // Three days of zone-less jobs, one a minute, oldest first: 85 of them in the final window.
    const jobs: Job[] = [];
    for (let ms = NOW - 72 * HOUR; ms <= NOW; ms += 60_000)
      jobs.push(job(`at-${(ms - SINCE) / 60_000}`, zoneless(ms, -5 * HOUR)));
    const { ids, recent } = await kept(jobs, { maxReads: 10, batch: 200 });
    expect(ids).toEqual([
      'at--65',
      'at--64',
      'at--63',
      'at--62',
      'at--61',
      'at--60',
      'at--59',
      'at--58',
      'at--57',
      'at--56',
    ]);
    expect(recent).toBe(86);
  });

  it('more zone-less jobs in the window than it holds while the start rises: reads the cap of them, and tells', async () => {
    const jobs: Job[] = [];
    for (let ms = NOW - 72 * HOUR; ms <= NOW; ms += 60_000)
      jobs.push(job(`at-${(ms - SINCE) / 60_000}`, zoneless(ms, -5 * HOUR)));
    const { ids, recent, sink } = await kept(jobs, { maxReads: 10, batch: 20 });
    expect(sink.held).toBeLessThanOrEqual(2 * (10 + 20));
    const window = new Set(jobs.map((one) => one.job_id).filter((id) => Number(id.slice(3)) >= -65));
    expect(ids).toHaveLength(10);
    expect(ids.filter((id) => !window.has(id))).toEqual([]);
    expect(recent).toBeGreaterThan(ids.length);
  });

  it('past the cap, counts the jobs of the final window only, not those let go under a lower start', async () => {
    // Three days of zone-less jobs, one a minute, oldest first: 86 in the final window (from 65 min
    // before the upload). Those let go for the cap while the start was lower were counted too: 436.
    const jobs: Job[] = [];
    for (let ms = NOW - 72 * HOUR; ms <= NOW; ms += 60_000)
      jobs.push(job(`at-${(ms - SINCE) / 60_000}`, zoneless(ms, -5 * HOUR)));
    for (const batch of [5, 20, 50]) {
      const { recent, sink } = await kept(jobs, { maxReads: 10, batch });
      expect(recent, `batch ${batch}`).toBe(86);
      expect((await sink.found()).recentAtLeast, `batch ${batch}`).toBe(86);
    }
  });

  it('past the cap, jobs let go in the second the window starts: counted as a range, never as surely recent', async () => {
    // Listed oldest first, the newest last: it places the start at 65 min and half a second before
    // the upload (as its local time tells), inside a second that jobs let go for the cap share.
    const edge = SINCE - 65 * 60_000;
    const jobs: Job[] = [];
    for (let i = 0; i < 20; i++) jobs.push(job(`old-${i}`, zoneless(edge - 10_000 + i * 20, -5 * HOUR)));
    for (let i = 0; i < 25; i++) jobs.push(job(`edge-${i}`, zoneless(edge - 1000 + i * 40, -5 * HOUR)));
    for (let i = 0; i < 20; i++) jobs.push(job(`new-${i}`, zoneless(SINCE - HOUR + i, -5 * HOUR)));
    jobs.push(job('newest', `${zoneless(NOW - 500, -5 * HOUR)}.500`));
    const { recent, sink } = await kept(jobs, { maxReads: 3, batch: 4 });
    const { recentAtLeast } = await sink.found();
    // 12 edge jobs from the start on, 20 new, the newest: 33; of the 25 edge ones, 13 are before it.
    expect(recentAtLeast).toBeLessThanOrEqual(33);
    expect(recent).toBeGreaterThanOrEqual(33);
    expect(recent - recentAtLeast).toBeGreaterThan(0);
    expect(recent - recentAtLeast).toBeLessThanOrEqual(25);
    expect(recentCount({ recent, recentAtLeast })).toBe(`${recentAtLeast} to ${recent}`);
  });

  it('a burst of jobs long before the upload, listed oldest first, does not shut out the jobs listed after it', async () => {
    // 19,900 jobs 100 minutes before the upload: past the 10,000 held while the window still reached
    // them. Then 300 jobs in the final window, the upload's among them: each is read, no warning.
    const jobs: Job[] = [];
    for (let i = 0; i < 19_900; i++)
      jobs.push(job(`burst-${i}`, zoneless(SINCE - 100 * 60_000 + i, -5 * HOUR)));
    for (let i = 0; i < 100; i++)
      jobs.push(job(`before-${i}`, zoneless(SINCE - 30 * 60_000 + i * 1000, -5 * HOUR)));
    jobs.push(job('upload', zoneless(SINCE + 2000, -5 * HOUR)));
    for (let i = 0; i < 199; i++)
      jobs.push(job(`after-${i}`, zoneless(SINCE + 60_000 + i * 5000, -5 * HOUR)));
    const { ids, recent } = await kept(jobs);
    expect(ids).toHaveLength(300);
    expect(ids).toContain('upload');
    expect(ids.filter((id) => id.startsWith('burst-'))).toEqual([]);
    expect(recent).toBe(300);
  });

  it("matches an upload to its job by the listing's zone-less times: west of UTC, the job is not taken for older", async () => {
    const { sink } = await kept(dayOfJobs(-5 * HOUR));
    const item = (job_id: string, file_name: string, created_at: string): JobContentItem => ({
      id: '1',
      job_id,
      file_name,
      audio_duration: 7,
      created_at,
    });
    const index = indexContents([
      {
        job: job('before', zoneless(SINCE - 2 * HOUR, -5 * HOUR)),
        items: [item('before', 'a.1f2e3d4c.wav', zoneless(SINCE - 2 * HOUR, -5 * HOUR))],
      },
      {
        job: job('upload', zoneless(SINCE + 2000, -5 * HOUR)),
        items: [item('upload', 'a.1f2e3d4c.wav', zoneless(SINCE + 2000, -5 * HOUR))],
      },
    ]);
    const input = { key: 'a', uploadNames: ['a.1f2e3d4c.wav'], sinceMs: SINCE };
    expect(matchUploads([input], index, sink.window).get('a')?.jobId).toBe('upload');
  });

  describe('at the edges of a calendar and of a time', () => {
    /** The jobs around an upload begun at `since` (a minute apart, newest first), listed at `since` + 20 min. */
    async function keptAround(since: number, offsetMs: number, write: (ms: number) => string) {
      const now = since + 20 * 60_000;
      const jobs: Job[] = [];
      for (let minutes = 19; minutes >= -180; minutes--)
        jobs.push(job(`at-${minutes}`, write(since + minutes * 60_000 + offsetMs)));
      jobs.splice(2, 0, job('upload', write(since + 2000 + offsetMs)));
      const sink = new RecentJobs(since, async () => new Set(), { now: () => now });
      for (const one of jobs) sink.add(one);
      const { jobs: read } = await sink.found();
      return read.map((one) => one.job_id);
    }
    const seconds = (ms: number) => new Date(ms).toISOString().slice(0, 19);
    // The newest, made a minute before it was received, places the start 66 min before the upload.
    const expected = [...Array.from({ length: 67 }, (_, i) => `at-${i - 66}`), 'upload'];
    const expectedAfter = Array.from({ length: 19 }, (_, i) => `at-${i + 1}`);

    it('an upload begun late on a leap day, the listing on the next (UTC-5, and UTC+9 the day before)', async () => {
      const since = Date.parse('2028-03-01T04:50:00.000Z');
      expect(await keptAround(since, -5 * HOUR, seconds)).toEqual([...expected, ...expectedAfter]);
      const east = Date.parse('2028-02-29T14:50:00.000Z');
      expect(await keptAround(east, 9 * HOUR, seconds)).toEqual([...expected, ...expectedAfter]);
    });

    it('times with fractions of a second: placed to the millisecond', async () => {
      const withMicros = (ms: number) => `${new Date(ms).toISOString().slice(0, 23)}417`;
      expect(await keptAround(SINCE, -3.5 * HOUR, withMicros)).toEqual([...expected, ...expectedAfter]);
    });

    it('times without seconds: the upload made in the minute it began is still read', async () => {
      const minutes = (ms: number) => new Date(ms).toISOString().slice(0, 16);
      const ids = await keptAround(SINCE + 45_000, 5.75 * HOUR, minutes);
      expect(ids).toContain('upload');
      expect(ids).toContain('at--66');
      expect(ids).not.toContain('at--180');
    });
  });
});
