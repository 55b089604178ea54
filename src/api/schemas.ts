import * as v from 'valibot';
import { truncate } from '../output/sanitize.js';

/** Identifiers are strings in the interface; a number is tolerated and read as its decimal text. */
const Id = v.pipe(
  v.union([v.string(), v.number()]),
  v.transform((value) => String(value)),
);

/**
 * A field that only describes (a date, a job's own id in its content): missing, null or a number is
 * read as text, so one odd item never fails a whole listing, and with it a download or a collection.
 */
const Described = v.optional(
  v.pipe(
    v.nullable(v.union([v.string(), v.number()])),
    v.transform((value) => (value === null ? '' : String(value))),
  ),
  '',
);

/** A duration in seconds, also as decimal text; anything else (null, a word) is unknown (null). */
const Duration = v.optional(
  v.pipe(
    v.unknown(),
    v.transform((value): number | null => {
      const seconds =
        typeof value === 'number'
          ? value
          : typeof value === 'string' && /^\s*\d+(\.\d+)?\s*$/.test(value)
            ? Number(value)
            : Number.NaN;
      return Number.isFinite(seconds) ? seconds : null;
    }),
  ),
  null,
);

export const JobSchema = v.looseObject({
  job_id: Id,
  token: v.optional(
    v.pipe(
      v.nullable(v.string()),
      v.transform((value) => value ?? ''),
    ),
    '',
  ),
  created_at: Described,
});
export type Job = v.InferOutput<typeof JobSchema>;

export const JobListSchema = v.looseObject({ jobs: v.array(JobSchema) });

export const CreatedJobSchema = v.looseObject({ job_id: Id });

export const JobContentItemSchema = v.looseObject({
  id: Id,
  job_id: Described,
  file_name: v.string(),
  audio_duration: Duration,
  created_at: Described,
});
export type JobContentItem = v.InferOutput<typeof JobContentItemSchema>;

export const JobContentSchema = v.looseObject({ jobContent: v.array(JobContentItemSchema) });

/** Absolute, or relative to the service URL (the client resolves it and checks its scheme). */
export const DownloadUrlSchema = v.looseObject({ signedUrl: v.pipe(v.string(), v.nonEmpty()) });

/** Reads the job id of an asynchronous redaction answer: `job_id`, `jobId` or `id`, whatever the 2xx status. */
export function jobIdOf(body: unknown): string | undefined {
  if (!body || typeof body !== 'object') return undefined;
  const record = body as Record<string, unknown>;
  for (const key of ['job_id', 'jobId', 'id']) {
    const value = record[key];
    if (typeof value === 'string' && value !== '') return value;
    if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  }
  return undefined;
}

/** Longest part of one issue shown: valibot's message repeats the refused value, whatever its size. */
const MAX_ISSUE_CHARS = 120;

export function describeIssues(issues: ReadonlyArray<v.BaseIssue<unknown>>): string {
  return issues
    .slice(0, 3)
    .map((issue) => {
      const path = truncate(issue.path?.map((p) => String(p.key)).join('.') ?? '', MAX_ISSUE_CHARS);
      const message = truncate(issue.message, MAX_ISSUE_CHARS);
      return path ? `${path}: ${message}` : message;
    })
    .join('; ');
}
