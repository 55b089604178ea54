import { describe, expect, it } from 'vitest';
import type { JobSink } from '../../src/api/client-types.js';
import type { Job, JobContentItem } from '../../src/api/schemas.js';
import { ConnectionError, errorForStatus, NotFoundError } from '../../src/api/errors.js';
import { AcceptedJobs } from '../../src/redact/accepted-jobs.js';
import { RECONCILE_MAX_READS } from '../../src/redact/recent-jobs.js';
import type { Clock } from '../../src/clock.js';
import { steppingClock } from '../helpers/stepping-clock.js';

const START = Date.parse('2026-11-21T02:00:00Z');

/** A jobs area of one job per upload, whose content names its upload only from the third look on. */
function service(uploads: string[]) {
  const calls = { listings: 0, reads: 0 };
  const jobs: Job[] = uploads.map((_, i) => ({
    job_id: `job-${i}`,
    token: 't',
    created_at: new Date(START + 1000).toISOString(),
  }));
  const looks = new Map<string, number>();
  return {
    calls,
    listJobs: async <S extends JobSink>(makeSink: () => S): Promise<S> => {
      calls.listings++;
      const sink = makeSink();
      for (const job of jobs) sink.add(job);
      await sink.drain?.();
      return sink;
    },
    jobContent: async (jobId: string): Promise<JobContentItem[]> => {
      calls.reads++;
      const seen = (looks.get(jobId) ?? 0) + 1;
      looks.set(jobId, seen);
      const index = Number(jobId.slice(4));
      if (seen < 3) return [];
      return [
        { id: String(index), job_id: jobId, file_name: uploads[index]!, created_at: '' } as JobContentItem,
      ];
    },
  };
}

/** A finder over `jobs` on a clock that steps through each wait at once; its warnings go to `warnings`. */
function finderOver(
  jobs: Pick<ReturnType<typeof service>, 'listJobs' | 'jobContent'>,
  warnings: string[] = [],
): AcceptedJobs {
  return new AcceptedJobs({
    clock: steppingClock(START),
    stop: new AbortController().signal,
    debug: () => {},
    warn: (message) => warnings.push(message),
    isStop: () => false,
    listJobs: jobs.listJobs,
    jobContent: jobs.jobContent,
  });
}

describe('AcceptedJobs', () => {
  it('finds many uploads with one listing a round, and reads a job that lists its files once', async () => {
    const uploads = ['a.1.wav', 'b.2.wav', 'c.3.wav'];
    const jobs = service(uploads);
    const finder = finderOver(jobs);
    const found = await Promise.all(uploads.map((name) => finder.find(name, START, START + 3_600_000)));
    expect(found.map((lookUp) => lookUp.job?.jobId)).toEqual(['job-0', 'job-1', 'job-2']);
    // Three rounds for three uploads: one listing each, not one per upload.
    expect(jobs.calls.listings).toBe(3);
    expect(jobs.calls.reads).toBe(9);
  });

  it('gives up on an upload at its deadline, with nothing found', async () => {
    const jobs = service([]);
    const finder = finderOver(jobs);
    expect(await finder.find('a.1.wav', START, START + 60_000)).toEqual({ job: undefined, problems: [] });
    expect(jobs.calls.listings).toBeGreaterThan(1);
  });

  it("ends every wait with the listing's error when the listing is refused for good (a 404), not at its deadline; a failure of a moment is tried again", async () => {
    const jobs = service(['a.1.wav']);
    let listings = 0;
    const finder = (failure: Error) =>
      finderOver({
        listJobs: async (makeSink) => {
          listings++;
          if (listings <= 2) throw failure;
          return jobs.listJobs(makeSink);
        },
        jobContent: jobs.jobContent,
      });
    const refused = new NotFoundError('listing jobs: the service answered 404');
    const refusing = finder(refused);
    const waits = ['a.1.wav', 'b.2.wav'].map((name) => refusing.find(name, START, START + 3_600_000));
    for (const wait of waits) await expect(wait).rejects.toBe(refused);
    // One round for each (the second joined as the first round began), not rounds until the deadline.
    expect(listings).toBeLessThanOrEqual(2);
    listings = 0;
    const found = await finder(new ConnectionError('listing jobs: connection reset', false)).find(
      'a.1.wav',
      START,
      START + 3_600_000,
    );
    expect(found.job?.jobId).toBe('job-0');
    expect(listings).toBeGreaterThan(2);
    // A 500 whose retries ran out is thrown as the answer's own error: a moment still.
    listings = 0;
    const answered500 = await finder(errorForStatus(500, 'listing jobs', '')).find(
      'a.1.wav',
      START,
      START + 3_600_000,
    );
    expect(answered500.job?.jobId).toBe('job-0');
  });

  it('warns once a run of each kind of problem its rounds meet, and tells an upload not found what its last round met', async () => {
    // More recent jobs than the cap, and the listing failing every other round.
    const jobs: Job[] = Array.from({ length: RECONCILE_MAX_READS + 3 }, (_, i) => ({
      job_id: `job-${i}`,
      token: 't',
      created_at: new Date(START + 1000 + i).toISOString(),
    }));
    let listings = 0;
    const warnings: string[] = [];
    const finder = finderOver(
      {
        listJobs: async (makeSink) => {
          listings++;
          if (listings % 2 === 1) throw new ConnectionError('listing jobs: connection reset', false);
          const sink = makeSink();
          for (const job of jobs) sink.add(job);
          await sink.drain?.();
          return sink;
        },
        jobContent: async () => [],
      },
      warnings,
    );
    const lookUp = await finder.find('a.1.wav', START, START + 120_000);
    expect(listings).toBeGreaterThan(4);
    expect(lookUp.job).toBeUndefined();
    expect(warnings).toEqual([
      'looking for uploads accepted without a job id: listing jobs: connection reset; trying again each round, until found or --wait-timeout (not told again this run)',
      `looking for uploads accepted without a job id: only the 500 oldest of the ${RECONCILE_MAX_READS + 3} recent jobs are read; an upload whose job is among the others is not found: it stays pending, and the next run looks for it before sending it again (not told again this run)`,
    ]);
    expect(lookUp.problems).toHaveLength(1);
    expect(lookUp.problems[0]).toMatch(/^listing jobs: connection reset$|^only the 500 oldest/);
  });

  describe('an upload whose answer was lost', () => {
    /** A jobs area listing `jobs`, each content naming its upload at once. */
    function listing(jobs: Record<string, string>) {
      const calls = { listings: 0 };
      return {
        calls,
        listJobs: async <S extends JobSink>(makeSink: () => S): Promise<S> => {
          calls.listings++;
          const sink = makeSink();
          for (const job_id of Object.keys(jobs))
            sink.add({ job_id, token: 't', created_at: new Date(START + 1000).toISOString() });
          await sink.drain?.();
          return sink;
        },
        jobContent: async (jobId: string): Promise<JobContentItem[]> => [
          { id: '1', job_id: jobId, file_name: jobs[jobId]!, created_at: '' } as JobContentItem,
        ],
      };
    }

    /** A clock that moves only when told to (`advance`): a sleep ends then, or when its signal aborts. */
    function manualClock() {
      let now = START;
      const timers = new Set<{ at: number; resolve: () => void }>();
      const clock: Clock = {
        now: () => now,
        random: () => 0.5,
        sleep: (ms, signal) =>
          new Promise<void>((resolve, reject) => {
            signal?.throwIfAborted();
            const timer = { at: now + ms, resolve };
            timers.add(timer);
            signal?.addEventListener(
              'abort',
              () => {
                timers.delete(timer);
                reject(signal.reason as Error);
              },
              { once: true },
            );
          }),
      };
      const settle = async () => {
        for (let i = 0; i < 20; i++) await new Promise((resolve) => setImmediate(resolve));
      };
      const advance = async (ms: number) => {
        now = START + ms;
        for (const timer of [...timers].filter((one) => one.at <= now)) {
          timers.delete(timer);
          timer.resolve();
        }
        await settle();
      };
      return { clock, advance, settle };
    }

    function lostFinder(jobs: ReturnType<typeof listing>, unsettled: () => number) {
      const { clock, advance, settle } = manualClock();
      const at: number[] = [];
      const finder = new AcceptedJobs({
        clock,
        stop: new AbortController().signal,
        debug: () => {},
        warn: () => {},
        isStop: () => false,
        listJobs: async (makeSink) => {
          at.push(clock.now() - START);
          return jobs.listJobs(makeSink);
        },
        jobContent: jobs.jobContent,
        unsettled,
      });
      return { finder, advance, settle, at };
    }

    it('is found at its first look, a few seconds after its failure', async () => {
      const jobs = listing({ 'job-7': 'a.1.wav' });
      const { finder, advance, at } = lostFinder(jobs, () => 1);
      const wait = finder.find('a.1.wav', START, START + 3_600_000, { firstLookMs: START + 5000 });
      await advance(4999);
      expect(at).toEqual([]);
      await advance(5000);
      expect((await wait).job?.jobId).toBe('job-7');
      expect(at).toEqual([5000]);
    });

    it('calls for no round while the rest of the run goes on, and is given up after one more once it is all that is left', async () => {
      const jobs = listing({});
      let unsettled = 3;
      const { finder, advance, settle, at } = lostFinder(jobs, () => unsettled);
      let over = false;
      const wait = finder
        .find('a.1.wav', START, START + 3_600_000, { firstLookMs: START + 5000 })
        .finally(() => {
          over = true;
        });
      await advance(5000);
      // Its first look, then nothing however long the rest of the run takes.
      await advance(1_000_000);
      expect(at).toEqual([5000]);
      unsettled = 2;
      finder.settled();
      await settle();
      expect(at).toEqual([5000]);
      expect(over).toBe(false);
      unsettled = 1;
      finder.settled();
      expect(await wait).toEqual({ job: undefined, problems: [] });
      expect(at).toEqual([5000, 1_000_000]);
    });

    it('is given up at its deadline (the wait for a job) even while the rest of the run goes on', async () => {
      const jobs = listing({});
      const { finder, advance, at } = lostFinder(jobs, () => 5);
      const wait = finder.find('a.1.wav', START, START + 60_000, { firstLookMs: START + 5000 });
      await advance(5000);
      await advance(60_000);
      expect(await wait).toEqual({ job: undefined, problems: [] });
      expect(at).toEqual([5000, 60_000]);
    });

    it('takes part in the rounds of uploads accepted without a job id, and is found there before its first look', async () => {
      const jobs = listing({ 'job-1': 'a.1.wav', 'job-2': 'b.2.wav' });
      const { finder, settle, at } = lostFinder(jobs, () => 2);
      const lost = finder.find('b.2.wav', START, START + 3_600_000, { firstLookMs: START + 60_000 });
      await settle();
      expect(at).toEqual([]);
      const accepted = finder.find('a.1.wav', START, START + 3_600_000);
      expect([(await accepted).job?.jobId, (await lost).job?.jobId]).toEqual(['job-1', 'job-2']);
      expect(at).toEqual([0]);
    });
  });
});
