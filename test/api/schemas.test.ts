import * as v from 'valibot';
import { describe, expect, test } from 'vitest';
import { NumberLiteral } from '../../src/api/exact-json.js';
import {
  contentElementProblem,
  CreatedJobSchema,
  describeIssues,
  fileNameProblem,
  fileNameShown,
  JobContentItemSchema,
  JobSchema,
  jobIdFieldOf,
  listedJobIdProblem,
} from '../../src/api/schemas.js';

const BIG = '12345678901234567891';

describe('ids given as numbers', () => {
  test('a number is read as its digits as written; a string stays as it is', () => {
    expect(v.parse(CreatedJobSchema, { job_id: new NumberLiteral(BIG) }).job_id).toBe(BIG);
    expect(v.parse(CreatedJobSchema, { job_id: 77 }).job_id).toBe('77');
    expect(v.parse(CreatedJobSchema, { job_id: '1.5' }).job_id).toBe('1.5');
    expect(v.parse(JobSchema, { job_id: new NumberLiteral(BIG) }).job_id).toBe(BIG);
    const item = v.parse(JobContentItemSchema, {
      id: new NumberLiteral(`${BIG}1`),
      job_id: new NumberLiteral(BIG),
      file_name: 'a.wav',
      audio_duration: new NumberLiteral('10.50'),
      created_at: 7,
    });
    expect([item.id, item.job_id, item.audio_duration, item.created_at]).toEqual([`${BIG}1`, BIG, 10.5, '7']);
  });

  test.each([
    [1.5, 'the number 1.5 cannot be an id: it is not a whole number'],
    [-3, 'the number -3 cannot be an id: it is negative'],
    [new NumberLiteral('2.0'), 'the number 2.0 cannot be an id: it is not a whole number'],
    [new NumberLiteral('1e3'), 'the number 1e3 cannot be an id: it is written with an exponent'],
    [new NumberLiteral('-0'), 'the number -0 cannot be an id: it is negative'],
    // A number whose literal was not kept (not read by exact-json.ts) is never taken past 2^53.
    [
      2 ** 64,
      'the number 18446744073709552000 cannot be an id: it is past 2^53, where a number loses digits',
    ],
  ])('%s is refused as a job id, the issue naming the field', (value, message) => {
    const result = v.safeParse(JobSchema, { job_id: value });
    expect(result.success).toBe(false);
    expect(result.issues?.map((issue) => [issue.path?.map((p) => p.key).join('.'), issue.message])).toEqual([
      ['job_id', message],
    ]);
  });

  test("an item's id only describes the item: missing, null or an object is empty, any number its literal", () => {
    expect(v.parse(JobContentItemSchema, { file_name: 'a.wav' }).id).toBe('');
    expect(v.parse(JobContentItemSchema, { id: null, file_name: 'a.wav' }).id).toBe('');
    expect(v.parse(JobContentItemSchema, { id: { a: 1 }, file_name: 'a.wav' }).id).toBe('');
    expect(v.parse(JobContentItemSchema, { id: 1.5, file_name: 'a.wav' }).id).toBe('1.5');
    expect(v.parse(JobContentItemSchema, { id: new NumberLiteral('1e3'), file_name: 'a.wav' }).id).toBe(
      '1e3',
    );
  });
});

describe("an item's file name", () => {
  const item = (file_name?: unknown) =>
    v.parse(JobContentItemSchema, file_name === undefined ? { id: 1 } : { id: 1, file_name });

  test('text is a name to ask for; anything else is shown as far as it can be, never asked for', () => {
    expect([fileNameShown(item('a.wav')), fileNameProblem(item('a.wav'))]).toEqual(['a.wav', undefined]);
    expect([fileNameShown(item()), fileNameProblem(item())]).toEqual([
      '',
      'the service listed it without a file name',
    ]);
    expect(fileNameProblem(item(null))).toBe('the service listed it without a file name');
    expect(fileNameProblem(item(true))).toBe('the service listed it without a file name');
    const numbered = item(new NumberLiteral(BIG));
    expect([fileNameShown(numbered), fileNameProblem(numbered)]).toEqual([
      BIG,
      `the service listed its file name as a number (${BIG})`,
    ]);
  });
});

describe('a job of a listing', () => {
  test('has an id to use, or says in plain words why it has none', () => {
    expect(listedJobIdProblem({ job_id: 'job-1' })).toBeUndefined();
    expect(listedJobIdProblem({ job_id: new NumberLiteral(BIG) })).toBeUndefined();
    expect(listedJobIdProblem({})).toBe('job_id is missing');
    expect(listedJobIdProblem({ job_id: null })).toBe('job_id is null, not text or a number');
    expect(listedJobIdProblem({ job_id: { a: 1 } })).toBe('job_id is an object, not text or a number');
    expect(listedJobIdProblem({ job_id: 1.5 })).toBe(
      'job_id: the number 1.5 cannot be an id: it is not a whole number',
    );
    expect(listedJobIdProblem({ job_id: '' })).toBe('job_id: it is empty');
    expect(listedJobIdProblem({ job_id: 'a/b' })).toBe(
      'job_id: it contains a character that would change the request path',
    );
    expect(listedJobIdProblem(null)).toBe('it is null, not an object');
  });

  test('its token is text or empty: a number or an object is no token to show', () => {
    expect(v.parse(JobSchema, { job_id: 'a', token: 5 }).token).toBe('');
    expect(v.parse(JobSchema, { job_id: 'a', token: { t: 'x' } }).token).toBe('');
    expect(v.parse(JobSchema, { job_id: 'a', token: null }).token).toBe('');
  });
});

describe('contentElementProblem', () => {
  test("an object is an item, whatever its fields; anything else is no item, said in a reader's words", () => {
    expect(contentElementProblem({})).toBeUndefined();
    expect(contentElementProblem({ file_name: 'a.wav' })).toBeUndefined();
    expect(contentElementProblem(7)).toBe('it is a number, not an object');
    expect(contentElementProblem(new NumberLiteral('12345678901234567891'))).toBe(
      'it is a number, not an object',
    );
    expect(contentElementProblem(null)).toBe('it is null, not an object');
    expect(contentElementProblem('a.wav')).toBe('it is text, not an object');
    expect(contentElementProblem(['a.wav'])).toBe('it is a list, not an object');
    expect(contentElementProblem(true)).toBe('it is true, not an object');
  });
});

describe('describeIssues', () => {
  const issuesOf = (schema: v.GenericSchema, value: unknown) =>
    describeIssues(v.safeParse(schema, value).issues ?? []);

  test("says what was wrong in a reader's words, never valibot's names of types", () => {
    expect(issuesOf(JobSchema, { job_id: { a: 1 } })).toBe('job_id is an object, not text or a number');
    expect(issuesOf(JobSchema, { job_id: null })).toBe('job_id is null, not text or a number');
    expect(issuesOf(JobSchema, {})).toBe('job_id is missing');
    expect(issuesOf(JobSchema, [1])).toBe('job_id is missing');
    expect(issuesOf(JobSchema, 3)).toBe('it is a number, not an object');
    expect(issuesOf(v.looseObject({ jobs: v.array(v.unknown()) }), { jobs: 'x' })).toBe(
      'jobs is text, not a list',
    );
    expect(issuesOf(v.looseObject({ u: v.pipe(v.string(), v.nonEmpty()) }), { u: '' })).toBe('u is empty');
    expect(issuesOf(v.looseObject({ u: v.string() }), { u: new NumberLiteral(BIG) })).toBe(
      'u is a number, not text',
    );
  });
});

describe('jobIdFieldOf', () => {
  test('the first of job_id, jobId and id holding a string or a number, as given', () => {
    expect(jobIdFieldOf({ id: new NumberLiteral(BIG) })).toEqual({
      field: 'id',
      value: new NumberLiteral(BIG),
    });
    expect(jobIdFieldOf({ job_id: '', jobId: 1.5, id: 'x' })).toEqual({ field: 'jobId', value: 1.5 });
    expect(jobIdFieldOf({ job_id: null, id: 'x' })).toEqual({ field: 'id', value: 'x' });
    expect(jobIdFieldOf({ status: 'queued' })).toBeUndefined();
    expect(jobIdFieldOf(null)).toBeUndefined();
  });

  test('else the first envelope (job, data, result) holding one, one level deep, named by its path', () => {
    expect(jobIdFieldOf({ job: { job_id: 'j' } })).toEqual({ field: 'job.job_id', value: 'j' });
    expect(jobIdFieldOf({ result: { jobId: 7 }, data: { id: 'd' } })).toEqual({
      field: 'data.id',
      value: 'd',
    });
    expect(jobIdFieldOf({ data: { id: '' }, result: { jobId: 7 } })).toEqual({
      field: 'result.jobId',
      value: 7,
    });
    expect(jobIdFieldOf({ id: 'own', job: { job_id: 'j' } })).toEqual({ field: 'id', value: 'own' });
    expect(jobIdFieldOf({ data: { data: { id: 'deep' } } })).toBeUndefined();
    expect(jobIdFieldOf({ data: [{ id: 'x' }] })).toBeUndefined();
    expect(jobIdFieldOf([{ id: 'x' }])).toBeUndefined();
  });
});
