/** Finding the job of an interrupted upload: which jobs are read, and which job goes to which input. */
import { describe, expect, it } from 'vitest';
import { NotFoundError } from '../../src/api/errors.js';
import type { Job, JobContentItem } from '../../src/api/schemas.js';
import {
  candidateJobs,
  indexContents,
  matchUploads,
  RECONCILE_SKEW_MS,
  reconcile,
} from '../../src/redact/reconcile.js';

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

describe('candidate jobs', () => {
  it('reads the jobs not known to the journal, made after the earliest start less the skew, or of unknown age', () => {
    const jobs = [
      job('old', T - RECONCILE_SKEW_MS - 1),
      job('skewed', T - RECONCILE_SKEW_MS),
      job('new', T + 1),
      job('undated', ''),
      job('garbled', 'yesterday'),
      job('known', T + 2),
      job('new', T + 1),
    ];
    expect(candidateJobs(jobs, T, new Set(['known'])).map((j) => j.job_id)).toEqual([
      'skewed',
      'new',
      'undated',
      'garbled',
    ]);
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
        { key: 'second', uploadName: 'a.wav', sinceMs: T + 4000 },
        { key: 'first', uploadName: 'a.wav', sinceMs: T },
        { key: 'third', uploadName: 'a.wav', sinceMs: T + 6000 },
        { key: 'old', uploadName: 'b.wav', sinceMs: T },
      ],
      index,
    );
    expect(Object.fromEntries(found)).toEqual({ first: 'j1', second: 'j2' });
  });

  it('prefers a job of the same duration, then the earliest', () => {
    const index = indexContents([
      { job: job('short', T + 1000), items: [item('short', 'call.wav', 2)] },
      { job: job('long', T + 2000), items: [item('long', 'call.wav', 60)] },
    ]);
    const found = matchUploads(
      [
        { key: 'long-input', uploadName: 'call.wav', sinceMs: T, durationSec: 60.2 },
        { key: 'short-input', uploadName: 'call.wav', sinceMs: T + 500, durationSec: 2 },
      ],
      index,
    );
    expect(Object.fromEntries(found)).toEqual({ 'long-input': 'long', 'short-input': 'short' });
    // A duration that matches none (another unit, say) rules nothing out.
    const loose = matchUploads([{ key: 'x', uploadName: 'call.wav', sinceMs: T, durationSec: 9 }], index);
    expect(loose.get('x')).toBe('short');
  });

  it('lists each job once, reads each candidate once, and skips a job that is gone', async () => {
    const reads: string[] = [];
    const warnings: string[] = [];
    const found = await reconcile(
      [
        { key: 1, uploadName: 'a.wav', sinceMs: T },
        { key: 2, uploadName: 'b.wav', sinceMs: T },
        { key: 3, uploadName: 'c.wav', sinceMs: T },
      ],
      {
        listJobs: async () => [job('ja', T + 1), job('jb', T + 2), job('gone', T + 3), job('old', 0)],
        jobContent: async (id) => {
          reads.push(id);
          if (id === 'gone') throw new NotFoundError('job not found', 404);
          return [item(id, id === 'ja' ? 'a.wav' : 'b.wav')];
        },
        known: new Set(),
        isStop: () => false,
        stop: new AbortController().signal,
        warn: (message) => warnings.push(message),
        debug: () => {},
      },
    );
    expect(Object.fromEntries(found)).toEqual({ 1: 'ja', 2: 'jb' });
    expect(reads.sort()).toEqual(['gone', 'ja', 'jb']);
    expect(warnings).toEqual([]);
  });
});
