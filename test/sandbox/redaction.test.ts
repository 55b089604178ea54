import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { pcm16MonoHeader } from '../../src/audio/wav-encode.js';
import { MAX_UPLOAD_BYTES } from '../../src/sandbox/index.js';
import {
  call,
  contentOf,
  fixture,
  isWav,
  redact,
  startTestSandbox,
  testDir,
  useCleanup,
  waitForResult,
  writeJunk,
  writeSilentMp3,
  writeWav,
} from '../helpers/sandbox-api.js';

useCleanup();

const REDACT = '/api/speech-to-speech-biometric-redaction';

async function stats(base: string): Promise<Record<string, number>> {
  return (await call(base, 'GET', '/__sandbox/stats', { token: null })).json() as Record<string, number>;
}

describe('synchronous redaction', () => {
  test.each(['speech-16bit.wav', 'speech-cbr.mp3'])('%s comes back as a WAV in the answer', async (name) => {
    const sandbox = await startTestSandbox();
    const answer = await redact(sandbox.baseUrl, fixture(name), {
      fields: { gender: 'f', model_id: 'advanced' },
    });
    expect(answer.status).toBe(200);
    expect(answer.headers['content-type']).toBe('audio/wav');
    expect(Number(answer.headers['content-length'])).toBe(answer.body.length);
    expect(isWav(answer.body)).toBe(true);
    expect(await stats(sandbox.baseUrl)).toMatchObject({ uploads: 1, syncResults: 1, asyncJobs: 0 });
    // A synchronous answer leaves no job behind.
    expect((await call(sandbox.baseUrl, 'GET', '/api/jobs')).json()).toEqual({ jobs: [] });
  });

  test('the same file with the same seed gives the same audio', async () => {
    const sandbox = await startTestSandbox({ seed: 7 });
    const first = await redact(sandbox.baseUrl, fixture('speech-16bit.wav'));
    const second = await redact(sandbox.baseUrl, fixture('speech-16bit.wav'));
    expect(first.status).toBe(200);
    expect(second.body.equals(first.body)).toBe(true);
  });
});

describe('refusals', () => {
  test('a file above 10 MiB is refused with 413 and an error body; exactly 10 MiB is not', async () => {
    const sandbox = await startTestSandbox();
    const dir = await testDir();
    const big = await redact(sandbox.baseUrl, await writeJunk(join(dir, 'big.wav'), MAX_UPLOAD_BYTES + 1));
    expect(big.status).toBe(413);
    expect(big.json()).toEqual({ error: 413, message: expect.stringContaining('10 MB') });

    // At the limit the size passes; these bytes are no audio, so the next check refuses them.
    const atLimit = await redact(sandbox.baseUrl, await writeJunk(join(dir, 'limit.wav'), MAX_UPLOAD_BYTES));
    expect(atLimit.status).toBe(422);

    // The connection is still usable after an early 413.
    expect((await call(sandbox.baseUrl, 'GET', '/api/jobs')).status).toBe(200);
    expect(await stats(sandbox.baseUrl)).toMatchObject({ uploads: 2, tooLarge: 1 });
  });

  test.each(['empty.wav', 'empty.mp3', 'not-audio.wav', 'header-only.wav'])(
    '%s is refused with 422 and an error body',
    async (name) => {
      const sandbox = await startTestSandbox();
      const answer = await redact(sandbox.baseUrl, fixture(name));
      expect(answer.status).toBe(422);
      expect(answer.json()).toEqual({ error: 422, message: expect.any(String) });
    },
  );

  test('audio over 60 minutes is refused with 422 naming the limit', async () => {
    const sandbox = await startTestSandbox();
    const dir = await testDir();
    const answer = await redact(sandbox.baseUrl, await writeSilentMp3(join(dir, 'long.mp3'), 3700));
    expect(answer.status).toBe(422);
    expect(answer.json()).toEqual({ error: 422, message: expect.stringContaining('60-minute') });
  });

  test('audio just over 60 minutes is refused with a length that reads longer than the limit', async () => {
    const sandbox = await startTestSandbox();
    const dir = await testDir();
    // At 1 kHz, 3600.4 s of silence fits the size limit (7.2 MB).
    const samples = 3_600_400;
    const path = join(dir, 'just-over.wav');
    await writeFile(path, Buffer.concat([pcm16MonoHeader(samples, 1000), Buffer.alloc(samples * 2)]));
    const answer = await redact(sandbox.baseUrl, path);
    expect(answer.status).toBe(422);
    expect((answer.json() as { message: string }).message).toContain('3600.4 s');
  });

  test.each([
    ['age', 'teenager'],
    ['gender', 'x'],
    ['language', 'pt'],
    ['model_id', 'huge'],
    ['emotion', 'angry'],
    ['avatar', ''],
    ['avatar', 'a'.repeat(65)],
  ])('%s=%j is refused with 400 naming the field', async (field, value) => {
    const sandbox = await startTestSandbox();
    const answer = await redact(sandbox.baseUrl, fixture('speech-16bit.wav'), { fields: { [field]: value } });
    expect(answer.status).toBe(400);
    expect(answer.json()).toEqual({ error: 400, message: expect.stringContaining(field) });
  });

  test('every allowed value passes', async () => {
    const sandbox = await startTestSandbox();
    const answer = await redact(sandbox.baseUrl, fixture('speech-16bit.wav'), {
      fields: {
        age: 'senior-adult',
        gender: 'opposite',
        language: 'de',
        model_id: 'mini',
        emotion: 'sad',
        avatar: 'Ada',
      },
    });
    expect(answer.status).toBe(200);
  });

  test('a form without source_audio, or a body that is not multipart, is a 400', async () => {
    const sandbox = await startTestSandbox();
    const form = new (await import('undici')).FormData();
    form.append('age', 'same');
    const noFile = await call(sandbox.baseUrl, 'POST', REDACT, { body: form });
    expect(noFile.status).toBe(400);
    expect(noFile.json()).toMatchObject({ error: 400, message: expect.stringContaining('source_audio') });

    const notMultipart = await call(sandbox.baseUrl, 'POST', REDACT, { json: { source_audio: 'x' } });
    expect(notMultipart.status).toBe(400);
    expect(notMultipart.json()).toMatchObject({ error: 400 });
  });
});

describe('asynchronous redaction', () => {
  test('a long file is accepted (202 + job id); the result item appears and downloads from the signed URL', async () => {
    const sandbox = await startTestSandbox({ speed: 1000 });
    const dir = await testDir();
    const source = await writeWav(join(dir, 'meeting.wav'), 40);

    const accepted = await redact(sandbox.baseUrl, source, { fields: { model_id: 'advanced' } });
    expect(accepted.status).toBe(202);
    const { job_id, status } = accepted.json() as { job_id: string; status: string };
    expect(status).toBe('accepted');

    const jobs = (await call(sandbox.baseUrl, 'GET', '/api/jobs')).json() as {
      jobs: Array<{ job_id: string }>;
    };
    expect(jobs.jobs.map((job) => job.job_id)).toEqual([job_id]);

    const first = await contentOf(sandbox.baseUrl, job_id);
    expect(first[0]).toEqual({
      id: expect.any(Number),
      job_id,
      file_name: 'meeting.wav',
      audio_duration: expect.closeTo(40, 1),
      created_at: expect.any(String),
    });

    const result = await waitForResult(sandbox.baseUrl, job_id, 'meeting.wav');
    expect(result.file_name).toBe('meeting.redacted.wav');
    expect(result.audio_duration).toBeGreaterThan(0);
    expect(result.id).not.toBe(first[0]!.id);

    const url = await call(sandbox.baseUrl, 'POST', `/api/jobs/${job_id}/files/download-url`, {
      json: { fileName: result.file_name },
    });
    expect(url.status).toBe(200);
    const signedUrl = new URL((url.json() as { signedUrl: string }).signedUrl);
    expect(signedUrl.origin).toBe(sandbox.filesUrl);
    expect(signedUrl.origin).not.toBe(sandbox.baseUrl);
    expect(signedUrl.searchParams.get('sig')).toMatch(/^[0-9a-f]{64}$/);

    const file = await call(signedUrl.origin, 'GET', `${signedUrl.pathname}${signedUrl.search}`, {
      token: null,
    });
    expect(file.status).toBe(200);
    expect(file.headers['content-type']).toBe('audio/wav');
    expect(isWav(file.body)).toBe(true);
  });

  test('an MP3 source keeps its name; its result is <stem>.redacted.wav; the source downloads as audio/mpeg', async () => {
    const sandbox = await startTestSandbox({ syncLimitSec: 0, speed: 1000 });
    const accepted = await redact(sandbox.baseUrl, fixture('speech-cbr.mp3'), { fileName: 'call.mp3' });
    expect(accepted.status).toBe(202);
    const { job_id } = accepted.json() as { job_id: string };
    const result = await waitForResult(sandbox.baseUrl, job_id, 'call.mp3');
    expect(result.file_name).toBe('call.redacted.wav');

    const url = await call(sandbox.baseUrl, 'POST', `/api/jobs/${job_id}/files/download-url`, {
      json: { fileName: 'call.mp3' },
    });
    const signed = new URL((url.json() as { signedUrl: string }).signedUrl);
    const file = await call(signed.origin, 'GET', `${signed.pathname}${signed.search}`, { token: null });
    expect(file.status).toBe(200);
    expect(file.headers['content-type']).toBe('audio/mpeg');
    expect(file.body.equals(await readFile(fixture('speech-cbr.mp3')))).toBe(true);
  });
  test('an MP3 the decoder finds after leading junk is kept and served as an MP3 too', async () => {
    const sandbox = await startTestSandbox({ syncLimitSec: 0, speed: 1000 });
    const dir = await testDir();
    const path = join(dir, 'padded.mp3');
    await writeFile(path, Buffer.concat([Buffer.alloc(100), await readFile(fixture('speech-cbr.mp3'))]));
    const accepted = await redact(sandbox.baseUrl, path);
    expect(accepted.status).toBe(202);
    const { job_id } = accepted.json() as { job_id: string };
    await waitForResult(sandbox.baseUrl, job_id, 'padded.mp3');

    const url = await call(sandbox.baseUrl, 'POST', `/api/jobs/${job_id}/files/download-url`, {
      json: { fileName: 'padded.mp3' },
    });
    const signed = new URL((url.json() as { signedUrl: string }).signedUrl);
    const file = await call(signed.origin, 'GET', `${signed.pathname}${signed.search}`, { token: null });
    expect(file.status).toBe(200);
    expect(file.headers['content-type']).toBe('audio/mpeg');
    expect(existsSync(join(sandbox.dataDir, 'jobs', job_id, 'source.mp3'))).toBe(true);
  });
});
