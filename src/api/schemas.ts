import * as v from 'valibot';
import { truncate } from '../output/sanitize.js';
import { type JsonNumber, literalOf, NumberLiteral } from './exact-json.js';
import { jobIdProblem, numberIdProblem, numberShown } from './identifiers.js';

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
 * A field that only describes (a date, an item's own id, a job's own id in its content): a number is
 * read as its digits, and missing, null or anything else (an object, true) as empty, so one odd item
 * never fails a whole listing, and with it a download or a collection.
 */
const Described = v.optional(
  v.pipe(
    v.unknown(),
    v.transform((value): string =>
      typeof value === 'string'
        ? value
        : typeof value === 'number' || value instanceof NumberLiteral
          ? literalOf(value)
          : '',
    ),
  ),
  '',
);

/**
 * A field read as empty (Described, a job's token) as machine output gives it: empty means the
 * service did not give it (or gave nothing usable), so it is null there, never an empty string the
 * service did not write. People's output shows it empty.
 */
export function givenOrNull(value: string): string | null {
  return value === '' ? null : value;
}

/**
 * An item's file name: text, or a number kept as the service wrote it (shown, never asked for); null
 * when missing or anything else. A file is asked for by its name, so only text can be: see
 * fileNameProblem.
 */
const FileName = v.optional(
  v.pipe(
    v.unknown(),
    v.transform((value): string | JsonNumber | null =>
      typeof value === 'string' || typeof value === 'number' || value instanceof NumberLiteral ? value : null,
    ),
  ),
  null,
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
  // A secret whoever's it is: only text is shown, masked (job-listings.ts); anything else is empty.
  token: v.optional(
    v.pipe(
      v.unknown(),
      v.transform((value): string => (typeof value === 'string' ? value : '')),
    ),
    '',
  ),
  created_at: Described,
});
export type Job = v.InferOutput<typeof JobSchema>;

const JobIdOnly = v.looseObject({ job_id: Id });

/**
 * Why a job of a listing has no id vredact can use, in a reader's words ("job_id is missing", "job_id:
 * the number 1.5 cannot be an id: it is not a whole number"); undefined when it has one. Every command
 * names a job by its id, so such a job is left out of a listing, never the listing failed with it.
 */
export function listedJobIdProblem(job: unknown): string | undefined {
  const result = v.safeParse(JobIdOnly, job);
  if (!result.success) return describeIssues(result.issues);
  const problem = jobIdProblem(result.output.job_id);
  return problem === undefined ? undefined : `job_id: ${problem}`;
}

export const JobListSchema = v.looseObject({ jobs: v.array(JobSchema) });

export const CreatedJobSchema = v.looseObject({ job_id: Id });

export const JobContentItemSchema = v.looseObject({
  id: Described,
  job_id: Described,
  file_name: FileName,
  audio_duration: Duration,
  created_at: Described,
});
export type JobContentItem = v.InferOutput<typeof JobContentItemSchema>;

/** An item whose file name is text: the only kind that can be asked for. */
export type NamedContentItem = JobContentItem & { file_name: string };

export function isNamed(item: JobContentItem): item is NamedContentItem {
  return typeof item.file_name === 'string';
}

/** An item's file name as far as it can be shown: a number as written, none as empty. */
export function fileNameShown(item: JobContentItem): string {
  const name = item.file_name;
  return name === null ? '' : typeof name === 'string' ? name : literalOf(name);
}

/** Why an item cannot be asked for by its name, in a reader's words; undefined when it can. */
export function fileNameProblem(item: JobContentItem): string | undefined {
  if (isNamed(item)) return undefined;
  if (item.file_name === null) return 'the service listed it without a file name';
  return `the service listed its file name as a number (${truncate(fileNameShown(item), 40)})`;
}

/**
 * Why an element of a job's content is no item at all (`it is a number, not an object`); undefined
 * for an object. Such an element is left out of the listing, never the listing failed with it: the
 * items after it are still the job's files.
 */
export function contentElementProblem(raw: unknown): string | undefined {
  if (raw !== null && typeof raw === 'object' && !Array.isArray(raw) && !(raw instanceof NumberLiteral))
    return undefined;
  return `it is ${kindOf(raw)}, not an object`;
}

export const JobContentSchema = v.looseObject({ jobContent: v.array(JobContentItemSchema) });

/** Absolute, or relative to the service URL (the client resolves it and checks its scheme). */
export const DownloadUrlSchema = v.looseObject({ signedUrl: v.pipe(v.string(), v.nonEmpty()) });

/** The fields that may name the job of an asynchronous redaction answer, the first given wins. */
const JOB_ID_FIELDS = ['job_id', 'jobId', 'id'] as const;

/**
 * The envelopes a service may wrap its answer's job in (`{"job": {"job_id": …}}`, `{"data": {"id":
 * …}}`, `{"result": {"jobId": …}}`), looked into one level deep and only when the answer names no job
 * of its own: a deeper search would take any nested `id` (a file's, a user's) for the job's.
 */
const JOB_ID_ENVELOPES = ['job', 'data', 'result'] as const;

type JobIdField = { field: string; value: string | JsonNumber };

/** The first of JOB_ID_FIELDS of `body` holding a string or a number, as the answer gave it. */
function ownJobIdField(body: unknown): JobIdField | undefined {
  if (!body || typeof body !== 'object' || Array.isArray(body)) return undefined;
  const record = body as Record<string, unknown>;
  for (const field of JOB_ID_FIELDS) {
    const value = record[field];
    if (typeof value === 'string' && value !== '') return { field, value };
    if (typeof value === 'number' || value instanceof NumberLiteral) return { field, value };
  }
  return undefined;
}

/**
 * The field naming the job of an asynchronous redaction answer, whatever the 2xx status: the answer's
 * own (JOB_ID_FIELDS), else the first envelope's (JOB_ID_ENVELOPES), named by its path (`data.id`)
 * so that a refusal says where the id was.
 */
export function jobIdFieldOf(body: unknown): JobIdField | undefined {
  const own = ownJobIdField(body);
  if (own !== undefined || !body || typeof body !== 'object' || Array.isArray(body)) return own;
  const record = body as Record<string, unknown>;
  for (const envelope of JOB_ID_ENVELOPES) {
    const inner = Object.hasOwn(record, envelope) ? ownJobIdField(record[envelope]) : undefined;
    if (inner !== undefined) return { field: `${envelope}.${inner.field}`, value: inner.value };
  }
  return undefined;
}

/** Longest part of one issue shown: valibot's message repeats the refused value, whatever its size. */
const MAX_ISSUE_CHARS = 120;

/** valibot's names of the types a schema expects, in a reader's words. */
const EXPECTED_WORDS: Readonly<Record<string, string>> = {
  string: 'text',
  number: 'a number',
  NumberLiteral: 'a number',
  Array: 'a list',
  Object: 'an object',
  boolean: 'true or false',
  null: 'null',
};

/** `(string | (number | NumberLiteral))` as "text or a number"; undefined for a type not in the table. */
function expectedWords(expected: string | null): string | undefined {
  const words = (expected?.match(/[A-Za-z]+/g) ?? []).map((name) => EXPECTED_WORDS[name]);
  if (words.length === 0 || words.some((word) => word === undefined)) return undefined;
  return [...new Set(words)].join(' or ');
}

/** What a value is, in a reader's words: never a class name of vredact's (`NumberLiteral`). */
function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (typeof value === 'string') return 'text';
  if (typeof value === 'number' || value instanceof NumberLiteral) return 'a number';
  if (typeof value === 'boolean') return String(value);
  if (Array.isArray(value)) return 'a list';
  return 'an object';
}

/**
 * One issue as what was wrong with the answer ("job_id is an object, not text or a number", "jobs is
 * missing"): valibot's own words name its types (`Expected (string | NumberLiteral) but received
 * Object`). A check with words of vredact's (an id that is no whole number) keeps them.
 */
function describeIssue(issue: v.BaseIssue<unknown>): string {
  const field = truncate(issue.path?.map((p) => String(p.key)).join('.') ?? '', MAX_ISSUE_CHARS);
  const subject = field || 'it';
  if (issue.kind === 'schema') {
    if (issue.input === undefined && field) return `${subject} is missing`;
    const expected = expectedWords(issue.expected);
    if (expected) return `${subject} is ${kindOf(issue.input)}, not ${expected}`;
  }
  if (issue.type === 'non_empty') return `${subject} is empty`;
  const message = truncate(issue.message, MAX_ISSUE_CHARS);
  return field ? `${field}: ${message}` : message;
}

export function describeIssues(issues: ReadonlyArray<v.BaseIssue<unknown>>): string {
  return issues.slice(0, 3).map(describeIssue).join('; ');
}
