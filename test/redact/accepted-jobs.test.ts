import { describe, expect, it } from 'vitest';
import type { JobSink } from '../../src/api/client-types.js';
import type { Job, JobContentItem } from '../../src/api/schemas.js';
import { ConnectionError, errorForStatus, NotFoundError } from '../../src/api/errors.js';
import { AcceptedJobs } from '../../src/redact/accepted-jobs.js';
import { RECONCILE_MAX_READS } from '../../src/redact/recent-jobs.js';
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
});
