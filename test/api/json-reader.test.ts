import * as v from 'valibot';
import { describe, expect, test } from 'vitest';
import { InvalidResponseError } from '../../src/api/errors.js';
import { MAX_JSON_DEPTH } from '../../src/api/json-depth.js';
import { MAX_ITEM_BYTES, NotAListError, readJsonList, readSmallJson } from '../../src/api/json-reader.js';
import { CreatedJobSchema, JobContentItemSchema, JobSchema } from '../../src/api/schemas.js';
import { scrubberFor } from '../../src/api/scrub.js';

const TOKEN = 'vr_secret_0123456789abcd';
const scrub = scrubberFor([TOKEN]);

async function* chunks(text: string, size = 7): AsyncIterable<Uint8Array> {
  const bytes = Buffer.from(text);
  for (let i = 0; i < bytes.length; i += size) yield bytes.subarray(i, i + size);
}

async function list(text: string, size?: number, maxItems?: number) {
  const items: v.InferOutput<typeof JobSchema>[] = [];
  await readJsonList(chunks(text, size), {
    ...(maxItems === undefined ? {} : { maxItems }),
    key: 'jobs',
    item: JobSchema,
    what: 'listing jobs',
    scrub,
    onItem: (item) => items.push(item),
  });
  return items;
}

describe('readJsonList', () => {
  test('a list past its most items fails with one line, without reading the rest', async () => {
    let pulled = 0;
    async function* longList(): AsyncIterable<Uint8Array> {
      yield Buffer.from('{"jobs":[');
      // Long enough for the cap to end it (without one, its unfinished JSON fails another way).
      for (let i = 0; i < 5000; i++) {
        pulled++;
        yield Buffer.from('{"job_id":"a"},');
      }
    }
    const read = readJsonList(longList(), {
      key: 'jobs',
      item: JobSchema,
      what: 'listing jobs',
      scrub,
      onItem: () => {},
      maxItems: 1000,
    });
    await expect(read).rejects.toThrow(
      'listing jobs: the service listed more than 1,000 items; vredact reads at most that many (a list that never ends?)',
    );
    expect(pulled).toBeLessThan(1010);
    await expect(
      list(JSON.stringify({ jobs: Array(1000).fill({ job_id: 'a' }) }), 64, 1000),
    ).resolves.toHaveLength(1000);
  });

  test('reads items across chunk boundaries, scrubbed of secrets', async () => {
    const body = JSON.stringify({
      meta: { x: 1 },
      jobs: [{ job_id: 'a', token: TOKEN, created_at: `t ${TOKEN}` }, { job_id: 7 }],
    });
    const items = await list(body);
    expect(items.map((job) => job.job_id)).toEqual(['a', '7']);
    expect(JSON.stringify(items)).not.toContain(TOKEN);
    expect(items[0]?.created_at).toBe('t vr_…abcd');
  });

  test('an empty list is fine; an answer without the list, or not JSON, is an error', async () => {
    expect(await list('{"jobs": []}')).toEqual([]);
    await expect(list('{"items": []}')).rejects.toBeInstanceOf(InvalidResponseError);
    await expect(list('<html>502</html>')).rejects.toThrow(/answer is not valid JSON at byte 1$/);
    await expect(list('{"jobs": [{"job_id": "a"} x')).rejects.toThrow(/answer is not valid JSON at byte 27$/);
    await expect(list('{"jobs": [{"job_id": "a"}, }')).rejects.toThrow(
      /answer is not valid JSON at byte 28$/,
    );
    await expect(list('{"jobs": [{"job_id": "a"}')).rejects.toThrow(
      /answer ends after 25 bytes, before its JSON is complete$/,
    );
    await expect(list('')).rejects.toThrow(/answer is empty$/);
    await expect(list('{"jobs": {"a": {"job_id": "a"}}}')).rejects.toThrow(/\(jobs is not a list\)$/);
    await expect(list('{"jobs": [{"nope": 1}]}')).rejects.toThrow(/unexpected answer/);
  });

  test('a UTF-8 byte order mark before the JSON is read past, an empty list as a list', async () => {
    expect(await list('\uFEFF{"jobs": []}')).toEqual([]);
    expect((await list('\uFEFF{"jobs": [{"job_id": "a"}]}')).map((job) => job.job_id)).toEqual(['a']);
  });

  test('an answer that is no list at all is a NotAListError; an item outside the schema is not', async () => {
    for (const text of ['{"id": "abc123"}', '<html>502</html>', '', '{"jobs": {"a": 1}}', '[]', '{"jobs": ['])
      await expect(list(text), text).rejects.toBeInstanceOf(NotAListError);
    const item = await list('{"jobs": [{"nope": 1}]}').catch((error: unknown) => error);
    expect(item).toBeInstanceOf(InvalidResponseError);
    expect(item).not.toBeInstanceOf(NotAListError);
  });

  test('items `admit` refuses are neither checked nor handed on; an error names its item by its place', async () => {
    const places: number[] = [];
    const items: string[] = [];
    const read = (text: string) =>
      readJsonList(chunks(text), {
        key: 'jobs',
        item: JobSchema,
        what: 'listing jobs',
        scrub,
        admit: (raw, position) => {
          places.push(position);
          return raw !== null;
        },
        onItem: (item) => items.push(item.job_id),
      });
    expect(await read('{"jobs": [null, {"job_id": "a"}, null]}')).toBe(1);
    expect([places, items]).toEqual([[1, 2, 3], ['a']]);
    expect(await read('{"jobs": [null]}')).toBe(0);
    await expect(read('{"jobs": [null, {"job_id": true}]}')).rejects.toThrow(
      /^listing jobs \(item 2\): unexpected answer/,
    );
  });

  test('an item larger than the bound fails with a message that names the bound', async () => {
    const body = JSON.stringify({ jobs: [{ job_id: 'a', created_at: 'x'.repeat(MAX_ITEM_BYTES + 10) }] });
    await expect(list(body, 64 * 1024)).rejects.toThrow(/larger than 1024 KiB/);
  });

  test('200,000 jobs (22 MB) are read whole', async () => {
    const job = (i: number) =>
      `{"job_id":"${String(i).padStart(36, '0')}","token":"vr_token_abcdefghijkl","created_at":"2026-11-21T10:00:00.000Z"}`;
    const parts: string[] = [];
    for (let i = 0; i < 200_000; i++) parts.push(job(i));
    const body = `{"jobs":[${parts.join(',')}]}`;
    expect(body.length).toBeGreaterThan(20_000_000);
    const items = await list(body, 64 * 1024);
    expect(items).toHaveLength(200_000);
    expect(items[199_999]?.job_id).toBe(String(199_999).padStart(36, '0'));
  });
});

/** `head` then `count` bytes of `[`, in 64 KiB chunks made as they are read; `pulled()` counts them. */
function deepBody(head: string, count: number) {
  let pulled = 0;
  async function* body(): AsyncIterable<Uint8Array> {
    yield Buffer.from(head);
    for (let left = count; left > 0; left -= 65536) {
      pulled++;
      yield Buffer.alloc(Math.min(65536, left), '[');
    }
  }
  return { body: body(), pulled: () => pulled };
}

describe('nesting depth', () => {
  const jobHead = '{"jobs":[{"job_id":"a","token":"b","created_at":"2026-01-01T00:00:00Z","x":';

  test('a list nesting a million levels deep fails at once, without reading on', async () => {
    const deep = deepBody(jobHead, 1_040_000);
    await expect(
      readJsonList(deep.body, {
        key: 'jobs',
        item: JobSchema,
        what: 'listing jobs',
        scrub,
        onItem: () => {},
      }),
    ).rejects.toThrow(`listing jobs: the service's answer nests deeper than ${MAX_JSON_DEPTH} levels`);
    expect(deep.pulled()).toBe(1);
  });

  test('an item nesting exactly to the bound is read; one level more is refused', async () => {
    // `{"jobs":[{` is 3 levels: the field adds the rest.
    const nested = (levels: number) => `${jobHead}${'['.repeat(levels)}${']'.repeat(levels)}}]}`;
    expect(await list(nested(MAX_JSON_DEPTH - 3))).toHaveLength(1);
    await expect(list(nested(MAX_JSON_DEPTH - 2))).rejects.toThrow(/nests deeper than 64 levels/);
  });

  test('brackets inside strings are text, not depth', async () => {
    const body = JSON.stringify({ jobs: [{ job_id: 'a', created_at: '['.repeat(10_000) }] });
    expect(await list(body)).toHaveLength(1);
  });

  test('a small answer nesting too deep fails at once too', async () => {
    const deep = deepBody('{"job_id":', 1_040_000);
    await expect(
      readSmallJson(deep.body, v.looseObject({ job_id: v.string() }), 'creating a job', scrub),
    ).rejects.toThrow(`creating a job: the service's answer nests deeper than ${MAX_JSON_DEPTH} levels`);
    expect(deep.pulled()).toBe(1);
  });
});

describe('readSmallJson', () => {
  test('a small answer is scrubbed and checked; a large one is refused', async () => {
    const schema = v.looseObject({ job_id: v.string() });
    expect(await readSmallJson(chunks(`{"job_id":"x${TOKEN}"}`), schema, 'creating a job', scrub)).toEqual({
      job_id: 'xvr_…abcd',
    });
    await expect(
      readSmallJson(chunks(`{"job_id":"${'x'.repeat(2_000_000)}"}`, 65536), schema, 'creating a job', scrub),
    ).rejects.toThrow(/more than 1024 KiB/);
  });
});

describe('an answer that fails its check', () => {
  // The check's own message repeats the value it refused: a 900 KB string must not become a 900 KB
  // error line on stderr (and in a journal's failure reason).
  test('names the refused value in a message cut to a few hundred characters, small or listed', async () => {
    const huge = 'x'.repeat(900_000);
    const small = readSmallJson(
      chunks(JSON.stringify({ signedUrl: huge }), 64 * 1024),
      v.looseObject({ signedUrl: v.pipe(v.string(), v.url()) }),
      'getting a download URL',
      scrub,
    );
    await expect(small).rejects.toThrow(InvalidResponseError);
    const smallMessage = ((await small.catch((error: unknown) => error)) as Error).message;
    expect(smallMessage).toMatch(/^getting a download URL: unexpected answer from the service \(signedUrl: /);
    expect(smallMessage.length).toBeLessThan(1000);

    const listed = await readJsonList(
      chunks(
        JSON.stringify({ jobContent: [{ id: 1, file_name: 'a.wav', audio_duration: huge }] }),
        64 * 1024,
      ),
      {
        key: 'jobContent',
        // A strict duration: the content's own schema reads a word there as an unknown duration.
        item: v.looseObject({ audio_duration: v.number() }),
        what: 'reading job a',
        scrub,
        onItem() {},
      },
    ).catch((error: unknown) => error);
    expect(listed).toBeInstanceOf(InvalidResponseError);
    expect((listed as Error).message).toMatch(/\(audio_duration is text, not a number\)$/);
    expect((listed as Error).message.length).toBeLessThan(1000);
  });
});

describe('numbers past 2^53 (JSON.parse reads 12345678901234567891 as 12345678901234567000)', () => {
  const BIG = '12345678901234567891';

  test('a created job id is the digits the answer wrote', async () => {
    const created = await readSmallJson(
      chunks(`{"job_id": ${BIG}}`),
      CreatedJobSchema,
      'creating a job',
      scrub,
    );
    expect(created.job_id).toBe(BIG);
  });

  test('listed ids are exact, a number split across chunks too; durations stay numbers', async () => {
    const items: v.InferOutput<typeof JobContentItemSchema>[] = [];
    await readJsonList(
      chunks(
        `{"jobContent":[{"id":${BIG}2,"job_id":${BIG},"file_name":"a.wav","audio_duration":10.50},` +
          `{"id":7,"job_id":9007199254740993,"file_name":"b.wav","audio_duration":1e1}]}`,
        3,
      ),
      {
        key: 'jobContent',
        item: JobContentItemSchema,
        what: 'reading job a',
        scrub,
        onItem: (item) => items.push(item),
      },
    );
    expect(items.map((item) => [item.id, item.job_id, item.audio_duration])).toEqual([
      [`${BIG}2`, BIG, 10.5],
      ['7', '9007199254740993', 10],
    ]);
  });

  test('an unknown field holding one is passed on as the number it was before', async () => {
    const [job] = await list(`{"jobs":[{"job_id":"a","size":${BIG}}]}`, 4);
    expect(JSON.stringify(job)).toContain(`"size":${Number(BIG)}`);
  });

  test.each([
    ['2.5', 'it is not a whole number'],
    ['1.0', 'it is not a whole number'],
    ['-4', 'it is negative'],
    ['1e3', 'it is written with an exponent'],
    ['1E+21', 'it is written with an exponent'],
  ])('a job id given as %s fails the answer, naming the field and why', async (number, why) => {
    await expect(list(`{"jobs":[{"job_id":${number}}]}`)).rejects.toThrow(
      `listing jobs (item 1): unexpected answer from the service (job_id: the number ${number} cannot be an id: ${why})`,
    );
  });
});
