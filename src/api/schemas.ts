import * as v from 'valibot';

/** Identifiers are strings in the interface; a number is tolerated and read as its decimal text. */
const Id = v.pipe(
  v.union([v.string(), v.number()]),
  v.transform((value) => String(value)),
);

export const JobSchema = v.looseObject({
  job_id: Id,
  token: v.optional(v.string(), ''),
  created_at: v.optional(v.string(), ''),
});
export type Job = v.InferOutput<typeof JobSchema>;

export const JobListSchema = v.looseObject({ jobs: v.array(JobSchema) });

export const CreatedJobSchema = v.looseObject({ job_id: Id });

export const JobContentItemSchema = v.looseObject({
  id: Id,
  job_id: v.optional(Id, ''),
  file_name: v.string(),
  audio_duration: v.optional(v.nullable(v.number()), null),
  created_at: v.optional(v.string(), ''),
});
export type JobContentItem = v.InferOutput<typeof JobContentItemSchema>;

export const JobContentSchema = v.looseObject({ jobContent: v.array(JobContentItemSchema) });

export const DownloadUrlSchema = v.looseObject({ signedUrl: v.pipe(v.string(), v.url()) });

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

export function describeIssues(issues: ReadonlyArray<v.BaseIssue<unknown>>): string {
  return issues
    .slice(0, 3)
    .map((issue) => {
      const path = issue.path?.map((p) => String(p.key)).join('.') ?? '';
      return path ? `${path}: ${issue.message}` : issue.message;
    })
    .join('; ');
}
