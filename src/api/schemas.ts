import * as v from 'valibot';
import { truncate } from '../output/sanitize.js';
import { type JsonNumber, literalOf, NumberLiteral } from './exact-json.js';
import { numberIdProblem, numberShown } from './identifiers.js';

/** A JSON number as exact-json.ts reads it (a number, or the literal a number would not hold). */
const JsonNumberValue = v.union([v.number(), v.instance(NumberLiteral)]);

/**
 * Identifiers are strings in the interface; a number is tolerated and read as its digits as written
 * (`12345678901234567891`, not the 12345678901234567000 a JavaScript number holds). A number that is
 * not plain digits (`1.5`, `-3`, `1e3`) is no identifier: the answer is refused, naming the field.
 */
const Id = v.pipe(
  v.union([v.string(), JsonNumberValue]),
  v.rawTransform(({ dataset, addIssue, NEVER }) => {
    const value: string | JsonNumber = dataset.value;
    if (typeof value === 'string') return value;
    const problem = numberIdProblem(value);
    if (problem === undefined) return literalOf(value);
    addIssue({ message: `the number ${numberShown(value)} cannot be an id: ${problem}` });
    return NEVER;
  }),
);

/**
 * A field that only describes (a date, a job's own id in its content): missing, null or a number is
 * read as text, so one odd item never fails a whole listing, and with it a download or a collection.
 */
const Described = v.optional(
  v.pipe(
    v.nullable(v.union([v.string(), JsonNumberValue])),
    v.transform((value) => (value === null ? '' : typeof value === 'string' ? value : literalOf(value))),
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
          : value instanceof NumberLiteral
            ? Number(value.text)
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

/**
 * An item's own id only describes it (a file is asked for by its name): missing or null it is shown
 * empty, rather than failing the listing, and a download of every file with it. A number is still
 * read as an id is.
 */
const ItemId = v.optional(
  v.pipe(
    v.nullable(Id),
    v.transform((value) => value ?? ''),
  ),
  '',
);

export const JobContentItemSchema = v.looseObject({
  id: ItemId,
  job_id: Described,
  file_name: v.string(),
  audio_duration: Duration,
  created_at: Described,
});
export type JobContentItem = v.InferOutput<typeof JobContentItemSchema>;

export const JobContentSchema = v.looseObject({ jobContent: v.array(JobContentItemSchema) });

/** Absolute, or relative to the service URL (the client resolves it and checks its scheme). */
export const DownloadUrlSchema = v.looseObject({ signedUrl: v.pipe(v.string(), v.nonEmpty()) });

/**
 * The field naming the job of an asynchronous redaction answer, whatever the 2xx status: the first of
 * `job_id`, `jobId` and `id` holding a string or a number, with its value as the answer gave it.
 */
export function jobIdFieldOf(body: unknown): { field: string; value: string | JsonNumber } | undefined {
  if (!body || typeof body !== 'object') return undefined;
  const record = body as Record<string, unknown>;
  for (const field of ['job_id', 'jobId', 'id']) {
    const value = record[field];
    if (typeof value === 'string' && value !== '') return { field, value };
    if (typeof value === 'number' || value instanceof NumberLiteral) return { field, value };
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
