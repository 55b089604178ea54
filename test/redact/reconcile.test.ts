/** Finding the job of an interrupted upload: which jobs are read, and which job goes to which input. */
import { describe, expect, it } from 'vitest';
import type { JobSink } from '../../src/api/client-types.js';
import { NotFoundError } from '../../src/api/errors.js';
import type { Job, JobContentItem } from '../../src/api/schemas.js';
import {
  indexContents,
  interruptedWarning,
  matchUploads,
  type InterruptedInput,
  type ReconcileDeps,
  reconcile,
} from '../../src/redact/reconcile.js';
import {
  JOURNAL_BATCH,
  RECONCILE_MAX_READS,
  RECONCILE_SKEW_MS,
  RecentJobs,
} from '../../src/redact/recent-jobs.js';

const T = Date.parse('2026-11-21T02:00:00.000Z');
const iso = (ms: number) => new Date(ms).toISOString();
const job = (job_id: string, created: number | string): Job => ({
  job_id,
  token: 't',
  created_at: typeof created === 'number' ? iso(created) : created,
});
const item = (job_id: string, file_name: string, audio_duration = 7): JobContentItem => ({
  id: '1',
  job_id,
  file_name,
  audio_duration,
  created_at: '',
});

/**
 * A listing as the client streams it: each job handed to a fresh sink, which is drained after each
 * (the client drains it after each chunk of the answer). `onAdd` sees the sink after each job.
 */
function listing(jobs: Iterable<Job>, onAdd: (sink: JobSink) => void = () => {}) {
  return async <S extends JobSink>(makeSink: () => S): Promise<S> => {
    const sink = makeSink();
    for (const one of jobs) {
      sink.add(one);
      onAdd(sink);
      await sink.drain?.();
    }
    return sink;
  };
}

/** The ids of the jobs the look-up would read, of a listing, oldest first. */
async function recentIds(jobs: Job[], sinceMs: number, named: ReadonlySet<string> = new Set()) {
  const sink = await listing(jobs)(
    () => new RecentJobs(sinceMs, async (ids) => new Set([...ids].filter((id) => named.has(id)))),
  );
  return (await sink.found()).jobs.map((one) => one.job_id);
}

/**
 * The look-up as a run makes it: how many inputs and since when, then, asked with the names the jobs
 * read list, the inputs whose uploads carried one of them.
 */
function lookUp<K>(
  inputs: InterruptedInput<K>[],
  deps: Omit<ReconcileDeps<K>, 'inputsNamed'>,
  asked: string[][] = [],
) {
  const search = { count: inputs.length, sinceMs: Math.min(...inputs.map((input) => input.sinceMs)) };
  return reconcile(search, {
    ...deps,
    inputsNamed: async (names) => {
      asked.push([...names].sort());
      return inputs.filter((input) => input.uploadNames.some((name) => names.has(name)));
    },
  });
}

describe('candidate jobs', () => {
  it('reads the jobs not known to the journal, made after the earliest start less the skew, or of unknown age', async () => {
    const jobs = [
      job('old', T - RECONCILE_SKEW_MS - 1),
      job('skewed', T - RECONCILE_SKEW_MS),
      job('new', T + 1),
      job('undated', ''),
      job('garbled', 'yesterday'),
      job('known', T + 2),
      job('new', T + 1),
    ];
    expect(await recentIds(jobs, T, new Set(['known']))).toEqual(['skewed', 'new', 'undated', 'garbled']);
  });

  it('reads a job whose created_at only looks like a date to Date.parse (`7`: July 2001) as of unknown age', async () => {
    const jobs = [job('seven', '7'), job('named', 'job 5'), job('old', T - RECONCILE_SKEW_MS - 1)];
    expect(await recentIds(jobs, T)).toEqual(['seven', 'named']);
  });
});

describe('matching', () => {
  it('gives each job to one input at most, in the order the uploads started', () => {
    const index = indexContents([
      { job: job('j1', T + 1000), items: [item('j1', 'a.wav'), item('j1', 'a.redacted.wav')] },
      { job: job('j2', T + 5000), items: [item('j2', 'a.wav')] },
      { job: job('j3', T - 10 * 60_000), items: [item('j3', 'b.wav')] },
    ]);
    const found = matchUploads(
      [
        { key: 'second', uploadNames: ['a.wav'], sinceMs: T + 4000 },
        { key: 'first', uploadNames: ['a.wav'], sinceMs: T },
        { key: 'third', uploadNames: ['a.wav'], sinceMs: T + 6000 },
        { key: 'old', uploadNames: ['b.wav'], sinceMs: T },
      ],
      index,
    );
    expect(Object.fromEntries(found)).toEqual({
      first: { jobId: 'j1', uploadName: 'a.wav' },
      second: { jobId: 'j2', uploadName: 'a.wav' },
    });
  });

  it("finds two same-named inputs by their exact upload names, never each other's", () => {
    const index = indexContents([
      { job: job('jy', T + 1000), items: [item('jy', 'x.1111bbbb.wav')] },
      { job: job('jx', T + 2000), items: [item('jx', 'x.2222aaaa.wav')] },
    ]);
    const found = matchUploads(
      [
        { key: 'a/x.wav', uploadNames: ['x.0000ffff.wav', 'x.2222aaaa.wav'], sinceMs: T },
        { key: 'b/x.wav', uploadNames: ['x.1111bbbb.wav'], sinceMs: T + 500 },
      ],
      index,
    );
    expect(Object.fromEntries(found)).toEqual({
      'a/x.wav': { jobId: 'jx', uploadName: 'x.2222aaaa.wav' },
      'b/x.wav': { jobId: 'jy', uploadName: 'x.1111bbbb.wav' },
    });
  });

  it('finds an upload by a result named after its unique stem, where the job lists no upload; never by a like stem', () => {
    const index = indexContents([
      { job: job('jr', T + 1000), items: [item('jr', 'call.1f2e3d4c_redacted.wav')] },
      { job: job('jk', T + 2000), items: [item('jk', 'results/9a/rec.2.aaaa0000.out.wav')] },
      // A tag of 9 hex digits, or another stem, names no upload here.
      {
        job: job('jn', T + 3000),
        items: [item('jn', 'call.1f2e3d4c5_x.wav'), item('jn', 'other.0000ffff_x.wav')],
      },
    ]);
    const found = matchUploads(
      [
        { key: 'call', uploadNames: ['call.1f2e3d4c.wav'], sinceMs: T },
        { key: 'rec', uploadNames: ['rec.2.aaaa0000.mp3'], sinceMs: T },
        { key: 'none', uploadNames: ['call.0000ffff.wav', 'call.1f2e3d4c5.wav'], sinceMs: T },
      ],
      index,
    );
    expect(Object.fromEntries(found)).toEqual({
      call: { jobId: 'jr', uploadName: 'call.1f2e3d4c.wav' },
      rec: { jobId: 'jk', uploadName: 'rec.2.aaaa0000.mp3' },
    });
  });

  it('never gives an input the job of a like-named upload: a prefix stem, one name in two folders, a stem of hex', () => {
    // Each job lists its result only, named after its own upload.
    const jobs: Array<[string, string]> = [
      ['ja', 'a.1f2e3d4c_redacted.wav'], // a.wav
      ['jab', 'a.b.2e3d4c5f_redacted.wav'], // a.b.wav
      ['jx', 'a.3d4c5f6a_redacted.wav'], // x/a.wav
      ['jy', 'a.4c5f6a7b_redacted.wav'], // y/a.wav
      ['jd', 'call.20240101.5f6a7b8c_redacted.wav'], // call.20240101.wav
      // A result of a.wav, downloaded under the service's name and redacted in its turn.
      ['jr', 'a.1f2e3d4c_redacted.6a7b8c9d_redacted.wav'],
    ];
    const index = indexContents(
      jobs.map(([id, name], i) => ({ job: job(id, T + 1000 * (i + 1)), items: [item(id, name)] })),
    );
    const input = (key: string, uploadName: string) => ({ key, uploadNames: [uploadName], sinceMs: T });
    const inputs = [
      input('a.b', 'a.b.2e3d4c5f.wav'),
      input('y/a', 'a.4c5f6a7b.wav'),
      input('x/a', 'a.3d4c5f6a.wav'),
      input('redone', 'a.1f2e3d4c_redacted.6a7b8c9d.wav'),
      input('a', 'a.1f2e3d4c.wav'),
      input('call', 'call.20240101.5f6a7b8c.wav'),
      // Stems another job's name begins with, under tags no upload carried.
      input('call-short', 'call.0badf00d.wav'),
      input('a-other', 'a.b.wav'),
    ];
    const found = matchUploads(inputs, index);
    expect(Object.fromEntries([...found].map(([key, { jobId }]) => [key, jobId]))).toEqual({
      'a.b': 'jab',
      'y/a': 'jy',
      'x/a': 'jx',
      redone: 'jr',
      a: 'ja',
      call: 'jd',
    });
    // Alone, each finds its own job, whichever order they come in.
    for (const one of inputs.filter(({ key }) => found.has(key)))
      expect(matchUploads([one], index).get(one.key)?.jobId).toBe(found.get(one.key)?.jobId);
  });

  it("never takes a job named after another upload that carried this one's name: a result redacted again", () => {
    // a.wav's upload (tag 1f2e3d4c) made no job, or its job is gone; its result, downloaded under the
    // service's name, was sent in its turn, and that job lists its own result only.
    const index = indexContents([
      { job: job('jr', T + 5000), items: [item('jr', 'a.1f2e3d4c_redacted.6a7b8c9d_redacted.wav')] },
    ]);
    const found = matchUploads(
      [
        { key: 'a', uploadNames: ['a.1f2e3d4c.wav'], sinceMs: T },
        { key: 'redone', uploadNames: ['a.1f2e3d4c_redacted.6a7b8c9d.wav'], sinceMs: T + 4000 },
      ],
      index,
    );
    expect(Object.fromEntries(found)).toEqual({
      redone: { jobId: 'jr', uploadName: 'a.1f2e3d4c_redacted.6a7b8c9d.wav' },
    });
  });

  it('reads at most the documented number of jobs, the oldest first, and warns past it', async () => {
    const reads: string[] = [];
    const warnings: string[] = [];
    const jobs = Array.from({ length: RECONCILE_MAX_READS + 5 }, (_, i) => job(`j${i}`, T + 1000 + i));
    const found = await lookUp([{ key: 1, uploadNames: ['a.1234abcd.wav'], sinceMs: T }], {
      listJobs: listing(jobs.slice().reverse()),
      jobContent: async (id) => {
        reads.push(id);
        return [item(id, id === 'j0' ? 'a.1234abcd.wav' : 'other.wav')];
      },
      namedInJournal: async () => new Set(),
      isStop: () => false,
      stop: new AbortController().signal,
      problem: (problem) => warnings.push(interruptedWarning(problem, 1)),
      debug: () => {},
    });
    expect(reads).toHaveLength(RECONCILE_MAX_READS);
    expect(reads).not.toContain(`j${RECONCILE_MAX_READS}`);
    expect(found.get(1)).toEqual({ jobId: 'j0', uploadName: 'a.1234abcd.wav' });
    expect(warnings.join('\n')).toMatch(/only the 500 oldest are read/);
  });

  it('lists each job once, reads each candidate once, and skips a job that is gone', async () => {
    const reads: string[] = [];
    const warnings: string[] = [];
    const asked: string[][] = [];
    const found = await lookUp(
      [
        { key: 1, uploadNames: ['a.wav'], sinceMs: T },
        { key: 2, uploadNames: ['b.wav'], sinceMs: T },
        { key: 3, uploadNames: ['c.wav'], sinceMs: T },
      ],
      {
        listJobs: listing([job('ja', T + 1), job('jb', T + 2), job('gone', T + 3), job('old', 0)]),
        jobContent: async (id) => {
          reads.push(id);
          if (id === 'gone') throw new NotFoundError('job not found', 404);
          return [item(id, id === 'ja' ? 'a.wav' : 'b.wav')];
        },
        namedInJournal: async () => new Set(),
        isStop: () => false,
        stop: new AbortController().signal,
        problem: (problem) => warnings.push(interruptedWarning(problem, 1)),
        debug: () => {},
      },
      asked,
    );
    expect(Object.fromEntries([...found].map(([key, value]) => [key, value.jobId]))).toEqual({
      1: 'ja',
      2: 'jb',
    });
    expect(reads.sort()).toEqual(['gone', 'ja', 'jb']);
    // The journals are asked once, and only about the names the jobs read list.
    expect(asked).toEqual([['a.wav', 'b.wav']]);
    expect(warnings).toEqual([]);
  });

  it('passes over the recent jobs the journals name, asking only about those', async () => {
    const reads: string[] = [];
    const asked: string[][] = [];
    const found = await lookUp([{ key: 1, uploadNames: ['a.wav'], sinceMs: T }], {
      listJobs: listing([job('mine', T + 1), job('named', T + 2), job('old', 0)]),
      jobContent: async (id) => {
        reads.push(id);
        return [item(id, 'a.wav')];
      },
      namedInJournal: async (ids) => {
        asked.push([...ids].sort());
        return new Set(['named']);
      },
      isStop: () => false,
      stop: new AbortController().signal,
      problem: () => {},
      debug: () => {},
    });
    expect(asked).toEqual([['mine', 'named']]);
    expect(reads).toEqual(['mine']);
    expect(found.get(1)?.jobId).toBe('mine');
  });

  it('fails on a journal that cannot be read while the jobs are listed, not as a listing that failed', async () => {
    const failure = new Error('EIO: i/o error, read');
    const warnings: string[] = [];
    const reads: string[] = [];
    // More recent jobs than one batch: the journals are asked while the listing is read.
    const jobs = Array.from({ length: JOURNAL_BATCH + 5 }, (_, i) => job(`j${i}`, T + i));
    const asked: number[] = [];
    const looking = lookUp([{ key: 1, uploadNames: ['a.wav'], sinceMs: T }], {
      listJobs: listing(jobs),
      jobContent: async (id) => {
        reads.push(id);
        return [];
      },
      namedInJournal: async (ids) => {
        asked.push(ids.size);
        throw failure;
      },
      isStop: () => false,
      stop: new AbortController().signal,
      problem: (problem) => warnings.push(interruptedWarning(problem, 1)),
      debug: () => {},
    });
    await expect(looking).rejects.toBe(failure);
    expect(asked).toEqual([JOURNAL_BATCH]);
    expect(reads).toEqual([]);
    expect(warnings).toEqual([]);
  });
});
