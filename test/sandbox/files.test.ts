import { describe, expect, test } from 'vitest';
import type { RequestRecord } from '../../src/sandbox/index.js';
import {
  call,
  contentOf,
  fixture,
  isWav,
  redact,
  startTestSandbox,
  TOKEN,
  useCleanup,
  waitForResult,
} from '../helpers/sandbox-api.js';

useCleanup();

/** An asynchronous job (sync limit 0) with its finished result, and a signed URL of that result. */
async function jobWithResult(options: Parameters<typeof startTestSandbox>[0] = {}, fileName = 'call.wav') {
  const sandbox = await startTestSandbox({ syncLimitSec: 0, speed: 1000, ...options });
  const accepted = await redact(sandbox.baseUrl, fixture('speech-16bit.wav'), { fileName });
  expect(accepted.status).toBe(202);
  const { job_id } = accepted.json() as { job_id: string };
  const result = await waitForResult(sandbox.baseUrl, job_id, fileName);
  const answer = await call(sandbox.baseUrl, 'POST', `/api/jobs/${job_id}/files/download-url`, {
    json: { fileName: result.file_name },
  });
  expect(answer.status).toBe(200);
  const signed = new URL((answer.json() as { signedUrl: string }).signedUrl);
  return { sandbox, jobId: job_id, result, signed };
}

const get = (url: URL, headers: Record<string, string> = {}) =>
  call(url.origin, 'GET', `${url.pathname}${url.search}`, { token: null, headers });

describe('signed URLs', () => {
  test('a valid URL serves the file with its length; the same path with a tampered signature is a 403', async () => {
    const { signed } = await jobWithResult();
    const good = await get(signed);
    expect(good.status).toBe(200);
    expect(Number(good.headers['content-length'])).toBe(good.body.length);
    expect(isWav(good.body)).toBe(true);

    const sig = signed.searchParams.get('sig')!;
    const tampered = new URL(signed);
    tampered.searchParams.set('sig', `${sig[0] === '0' ? '1' : '0'}${sig.slice(1)}`);
    const bad = await get(tampered);
    expect(bad.status).toBe(403);
    expect(bad.text).toContain('<Error>');

    const later = new URL(signed);
    later.searchParams.set('expires', String(Number(signed.searchParams.get('expires')) + 3600));
    expect((await get(later)).status).toBe(403);

    const unsigned = new URL(signed);
    unsigned.search = '';
    expect((await get(unsigned)).status).toBe(403);

    const otherFile = new URL(signed);
    otherFile.pathname = otherFile.pathname.replace(/[^/]+$/, 'call.wav');
    expect((await get(otherFile)).status).toBe(403);
  });

  test('an expired URL is a 403', async () => {
    const { signed } = await jobWithResult({ signedUrlTtlSec: -60 });
    const answer = await get(signed);
    expect(answer.status).toBe(403);
    expect(answer.text).toContain('expired');
  });

  test('a request carrying an Authorization header is refused (400) and recorded', async () => {
    const { sandbox, signed } = await jobWithResult();
    const answer = await get(signed, { authorization: `Bearer ${TOKEN}` });
    expect(answer.status).toBe(400);
    expect(answer.headers['content-type']).toBe('application/xml');
    expect(answer.text).toContain('InvalidArgument');

    const requests = (
      await call(sandbox.baseUrl, 'GET', '/__sandbox/requests', { token: null })
    ).json() as RequestRecord[];
    const files = requests.filter((r) => r.listener === 'files');
    expect(files).toEqual([
      { listener: 'files', method: 'GET', path: signed.pathname, hadAuthorization: true, status: 400 },
    ]);
    const stats = (await call(sandbox.baseUrl, 'GET', '/__sandbox/stats', { token: null })).json();
    expect(stats).toMatchObject({ filesAuthorizationRefused: 1 });
  });

  test('the request log keeps no token and no signature', async () => {
    const { sandbox, signed } = await jobWithResult();
    await get(signed);
    const log = (await call(sandbox.baseUrl, 'GET', '/__sandbox/requests', { token: null })).text;
    expect(log).not.toContain(TOKEN);
    expect(log).not.toContain(signed.searchParams.get('sig')!);
    const records = JSON.parse(log) as RequestRecord[];
    expect(records.filter((r) => r.listener === 'api').every((r) => r.hadAuthorization)).toBe(true);
    expect(records.at(-1)).toMatchObject({
      listener: 'files',
      method: 'GET',
      hadAuthorization: false,
      status: 200,
    });
  });

  test('a file that is gone is a 404', async () => {
    const { signed } = await jobWithResult();
    const unknownJob = new URL(signed);
    unknownJob.pathname = '/files/00000000-0000-4000-8000-000000000000/call.redacted.wav';
    // The signature no longer matches another path: 403 comes first.
    expect((await get(unknownJob)).status).toBe(403);
    const nowhere = new URL(signed);
    nowhere.pathname = '/elsewhere';
    expect((await get(nowhere)).status).toBe(404);
  });

  test.each(['weird name #1 100%?.wav', 'ünïcødé.wav', '../../escape.wav'])(
    'a file named %j is listed as sent and downloads through its percent-encoded URL',
    async (fileName) => {
      const { sandbox, jobId, result, signed } = await jobWithResult({}, fileName);
      const names = (await contentOf(sandbox.baseUrl, jobId)).map((item) => item.file_name);
      expect(names).toContain(fileName);
      expect(result.file_name).toBe(fileName.replace(/\.wav$/, '.redacted.wav'));
      expect(signed.pathname.endsWith(`/${encodeURIComponent(result.file_name)}`)).toBe(true);
      expect((await get(signed)).status).toBe(200);

      const source = await call(sandbox.baseUrl, 'POST', `/api/jobs/${jobId}/files/download-url`, {
        json: { fileName },
      });
      expect((await get(new URL((source.json() as { signedUrl: string }).signedUrl))).status).toBe(200);
    },
  );

  test('HEAD answers the headers only; other methods are a 405', async () => {
    const { signed } = await jobWithResult();
    const head = await call(signed.origin, 'HEAD', `${signed.pathname}${signed.search}`, { token: null });
    expect(head.status).toBe(200);
    expect(Number(head.headers['content-length'])).toBeGreaterThan(44);
    const put = await call(signed.origin, 'PUT', `${signed.pathname}${signed.search}`, {
      token: null,
      body: 'x',
    });
    expect(put.status).toBe(405);
  });
});
