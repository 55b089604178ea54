import { Readable } from 'node:stream';
import type { Dispatcher } from 'undici';
import { describe, expect, it } from 'vitest';
import { InvalidResponseError } from '../../src/api/errors.js';
import { UnsafeIdentifierError } from '../../src/api/identifiers.js';
import { readRedactionAnswer } from '../../src/api/redaction-answer.js';
import { scrubberFor } from '../../src/api/scrub.js';

const URL_OF = new URL('http://127.0.0.1:1/api/speech-to-speech-biometric-redaction');
const JOBS_URL = new URL('http://127.0.0.1:1/api/jobs');
const TOKEN = 'vr_live_0123456789abcdef';

function response(
  status: number,
  contentType: string | undefined,
  ...chunks: Buffer[]
): Dispatcher.ResponseData {
  return located(status, contentType, {}, ...chunks);
}

function located(
  status: number,
  contentType: string | undefined,
  headers: Record<string, string>,
  ...chunks: Buffer[]
): Dispatcher.ResponseData {
  return {
    statusCode: status,
    headers: { ...headers, ...(contentType === undefined ? {} : { 'content-type': contentType }) },
    body: Readable.from(chunks),
  } as unknown as Dispatcher.ResponseData;
}

async function read(res: Dispatcher.ResponseData) {
  const consumed: Buffer[] = [];
  const answer = await readRedactionAnswer(
    res,
    async (body) => {
      for await (const chunk of body) consumed.push(Buffer.from(chunk));
      return 'sink result';
    },
    'redacting a.wav',
    URL_OF,
    JOBS_URL,
    scrubberFor([TOKEN]),
  );
  return { answer, consumed: Buffer.concat(consumed) };
}

const wav = Buffer.concat([
  Buffer.from('RIFF'),
  Buffer.alloc(4),
  Buffer.from('WAVEfmt '),
  Buffer.alloc(40, 1),
]);

describe('readRedactionAnswer', () => {
  it('an audio/* answer goes to the sink whole', async () => {
    const { answer, consumed } = await read(response(200, 'Audio/WAV', wav.subarray(0, 5), wav.subarray(5)));
    expect(answer).toEqual({ kind: 'audio', result: 'sink result' });
    expect(consumed).toEqual(wav);
  });

  it('a RIFF/WAVE start is audio whatever its content type', async () => {
    const { answer, consumed } = await read(response(200, 'application/octet-stream', wav));
    expect(answer.kind).toBe('audio');
    expect(consumed).toEqual(wav);
  });

  it.each([
    ['{"job_id":"job-1"}', 'job-1'],
    ['{"jobId":"job-2"}', 'job-2'],
    ['{"id":77}', '77'],
    ['{"id": 18446744073709551617}', '18446744073709551617'],
    ['{"job_id": 9007199254740993}', '9007199254740993'],
  ])('a JSON answer %s is a job to collect later', async (body, jobId) => {
    const { answer, consumed } = await read(response(202, 'application/json', Buffer.from(body)));
    expect(answer).toEqual({ kind: 'job', jobId });
    expect(consumed.length).toBe(0);
  });

  it.each([
    [202, 'application/json', ''],
    [202, undefined, ''],
    [202, 'text/plain', 'Accepted'],
    [202, 'application/json', '{"status":"accepted"}'],
  ])('a %i %s answer %j naming no job is an acceptance', async (status, type, body) => {
    const { answer } = await read(response(status, type, Buffer.from(body)));
    expect(answer).toEqual({ kind: 'accepted' });
  });

  it.each([
    [200, 'text/html', '<html>portal</html>'],
    // A portal at the wrong base URL answers 200 to any POST: only a 202 says the upload was taken.
    [200, 'application/json; charset=utf-8', '{"status":"queued"}'],
    [201, 'application/problem+json', '{}'],
    [200, 'application/json', '[]'],
    [200, 'application/json', '{"error":500,"message":"database error"}'],
    [204, undefined, ''],
  ])('a %i %s answer %j is no acceptance', async (status, type, body) => {
    const failure = await read(response(status, type, Buffer.from(body))).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(InvalidResponseError);
  });

  it.each([
    ['{"job":{"job_id":"job-1"}}', 'job-1'],
    ['{"data":{"id":"job-2"},"meta":{"id":"other"}}', 'job-2'],
    ['{"result":{"jobId":18446744073709551617}}', '18446744073709551617'],
    ['{"status":"accepted","data":{"file":{"id":"f-1"}},"result":{"job_id":"job-3"}}', 'job-3'],
    // The answer's own field wins over an envelope's.
    ['{"id":"own","job":{"job_id":"wrapped"}}', 'own'],
  ])('a job id inside one envelope, %s, is a job to collect later', async (body, jobId) => {
    const { answer } = await read(response(202, 'application/json', Buffer.from(body)));
    expect(answer).toEqual({ kind: 'job', jobId });
  });

  it.each([
    ['{"data":{"data":{"id":"deep"}}}'],
    ['{"payload":{"job_id":"unlisted-envelope"}}'],
    ['{"data":[{"id":"in-a-list"}]}'],
    ['{"job":"job-as-text"}'],
  ])('an id deeper than one envelope, or in another, %s, names no job', async (body) => {
    const { answer } = await read(response(202, 'application/json', Buffer.from(body)));
    expect(answer).toEqual({ kind: 'accepted' });
  });

  it('a number in an envelope that is no id is refused naming its path', async () => {
    const failure = await read(response(202, 'application/json', Buffer.from('{"data":{"id":1.5}}'))).catch(
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(UnsafeIdentifierError);
    expect((failure as Error).message).toBe(
      'redacting a.wav: the service gave the job id as the number 1.5 in `data.id`, which cannot be used (it is not a whole number)',
    );
  });

  it('an unsafe id in an envelope is refused as one in the body', async () => {
    await expect(
      read(response(202, 'application/json', Buffer.from('{"job":{"job_id":"../x"}}'))),
    ).rejects.toBeInstanceOf(UnsafeIdentifierError);
  });

  it.each([
    [202, { location: '/api/jobs/3f2a-9c' }, '3f2a-9c'],
    [201, { location: 'http://127.0.0.1:1/api/jobs/3f2a-9c/content' }, '3f2a-9c'],
    [202, { 'content-location': '/api/jobs/3f2a-9c/?wait=1' }, '3f2a-9c'],
    [202, { location: 'http://elsewhere.example/x', 'content-location': 'jobs/3f2a-9c' }, '3f2a-9c'],
  ])('a %i with %j and a body naming no job is that job', async (status, headers, jobId) => {
    const { answer } = await read(
      located(status, 'application/json', headers, Buffer.from('{"status":"ok"}')),
    );
    expect(answer).toEqual({ kind: 'job', jobId });
  });

  it('the body names the job before a Location does', async () => {
    const { answer } = await read(
      located(
        202,
        'application/json',
        { location: '/api/jobs/from-header' },
        Buffer.from('{"job_id":"from-body"}'),
      ),
    );
    expect(answer).toEqual({ kind: 'job', jobId: 'from-body' });
  });

  it('a 202 whose Location names no job of the service is the acceptance it was, not an error', async () => {
    const { answer } = await read(
      located(202, undefined, {
        location: 'https://127.0.0.1:1/api/jobs/j1',
        'content-location': '/api/queue/j1',
      }),
    );
    expect(answer).toEqual({ kind: 'accepted' });
  });

  it.each([
    [200, 'application/json', '{"status":"queued"}'],
    [200, 'text/html', '<html>portal</html>'],
    [204, undefined, ''],
  ])(
    'a %i %s answer is no job even with a Location naming one (acceptance is not widened)',
    async (status, type, body) => {
      const failure = await read(
        located(status, type, { location: '/api/jobs/j1' }, Buffer.from(body)),
      ).catch((error: unknown) => error);
      expect(failure).toBeInstanceOf(InvalidResponseError);
      expect((failure as Error).message).toContain(`answered ${status} with neither audio nor a job id`);
    },
  );

  it('a 201 whose Location names no job stays the error it was', async () => {
    const failure = await read(located(201, undefined, { location: '/api/jobs/a%2Fb' })).catch(
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(InvalidResponseError);
    expect((failure as Error).message).toContain('answered 201 with neither audio nor a job id');
  });

  it('an audio answer is audio whatever its Location', async () => {
    const { answer, consumed } = await read(located(201, 'audio/wav', { location: '/api/jobs/j1' }, wav));
    expect(answer).toEqual({ kind: 'audio', result: 'sink result' });
    expect(consumed).toEqual(wav);
  });

  it('a job id unsafe in a path is refused', async () => {
    await expect(
      read(response(202, 'application/json', Buffer.from('{"job_id":"../../x"}'))),
    ).rejects.toBeInstanceOf(UnsafeIdentifierError);
  });

  it.each([
    ['{"id": 1.5}', 'the number 1.5 in `id`', 'it is not a whole number'],
    ['{"job_id": -12}', 'the number -12 in `job_id`', 'it is negative'],
    ['{"jobId": 12e3}', 'the number 12e3 in `jobId`', 'it is written with an exponent'],
  ])(
    'a job id given as a number that is no id, %s, is refused naming the field',
    async (body, named, why) => {
      const failure = await read(response(202, 'application/json', Buffer.from(body))).catch(
        (error: unknown) => error,
      );
      expect(failure).toBeInstanceOf(UnsafeIdentifierError);
      expect((failure as Error).message).toBe(
        `redacting a.wav: the service gave the job id as ${named}, which cannot be used (${why})`,
      );
    },
  );

  it('neither audio nor a job id is an InvalidResponseError naming the status and type, scrubbed', async () => {
    const failure = await read(
      response(200, `text/html; token=${TOKEN}`, Buffer.from('<html>hi</html>')),
    ).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(InvalidResponseError);
    expect((failure as Error).message).toContain('answered 200 with neither audio nor a job id');
    expect((failure as Error).message).not.toContain(TOKEN);
    const untyped = await read(response(200, undefined, Buffer.from('{}'))).catch((error: unknown) => error);
    expect((untyped as Error).message).toContain('no content type');
  });

  it('a JSON answer past 1 MiB says so, as every other small answer does, not "neither audio nor a job id"', async () => {
    const padded = Buffer.from(`{"pad":"${'p'.repeat(2 * 1024 * 1024)}","job_id":"j1"}`);
    const failure = await read(response(202, 'application/json', padded)).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(InvalidResponseError);
    expect((failure as Error).message).toBe(
      'redacting a.wav: the service answered with more than 1024 KiB where a small JSON object was expected',
    );
  });
});

describe('a body not read to its end', () => {
  /** An answer that never ends: only destroying it stops it. */
  function endless(contentType: string, first: Buffer): Dispatcher.ResponseData {
    async function* chunks() {
      yield first;
      for (;;) yield Buffer.alloc(1024, 0x20);
    }
    return {
      statusCode: 200,
      headers: { 'content-type': contentType },
      body: Readable.from(chunks()),
    } as unknown as Dispatcher.ResponseData;
  }

  it('is closed when the sink refuses the audio unread, and when a JSON answer passes its limit', async () => {
    const audio = endless('audio/wav', wav);
    const refused = new Error('announced past the cap');
    await expect(
      readRedactionAnswer(
        audio,
        async () => Promise.reject(refused),
        'redacting a.wav',
        URL_OF,
        JOBS_URL,
        scrubberFor([TOKEN]),
      ),
    ).rejects.toBe(refused);
    expect(audio.body.destroyed).toBe(true);

    const json = endless('application/json', Buffer.from('{"job_id":"'));
    await expect(read(json)).rejects.toBeInstanceOf(InvalidResponseError);
    expect(json.body.destroyed).toBe(true);
  });
});
