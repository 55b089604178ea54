import { describe, expect, test } from 'vitest';
import { startSandbox } from '../../src/sandbox/index.js';
import { call, fixture, redact, startTestSandbox, TOKEN, useCleanup } from '../helpers/sandbox-api.js';

useCleanup();

const ENDPOINTS: Array<['GET' | 'POST', string]> = [
  ['GET', '/api/jobs'],
  ['POST', '/api/jobs'],
  ['GET', '/api/jobs/some-job/content'],
  ['POST', '/api/jobs/some-job/files/download-url'],
  ['POST', '/api/speech-to-speech-biometric-redaction'],
];

describe('authentication', () => {
  test.each(ENDPOINTS)(
    '%s %s: 401 without a header, 403 with an unknown token, both with an error body',
    async (method, path) => {
      const sandbox = await startTestSandbox();
      const missing = await call(sandbox.baseUrl, method, path, { token: null });
      expect(missing.status).toBe(401);
      expect(missing.headers['content-type']).toMatch(/^application\/json/);
      expect(missing.json()).toEqual({ error: 401, message: expect.any(String) });

      const unknown = await call(sandbox.baseUrl, method, path, { token: 'vr_not_a_known_token' });
      expect(unknown.status).toBe(403);
      expect(unknown.json()).toEqual({ error: 403, message: expect.any(String) });

      const notBearer = await call(sandbox.baseUrl, method, path, { token: `raw:Basic ${TOKEN}` });
      expect(notBearer.status).toBe(403);
    },
  );

  test('a rejected upload is not read: the redaction endpoint answers 401 with the file still on its way', async () => {
    const sandbox = await startTestSandbox();
    const answer = await redact(sandbox.baseUrl, fixture('speech-16bit.wav'), { token: null });
    expect(answer.status).toBe(401);
    expect(answer.json()).toMatchObject({ error: 401 });
  });

  test('the bearer scheme is case-insensitive', async () => {
    const sandbox = await startTestSandbox();
    const answer = await call(sandbox.baseUrl, 'GET', '/api/jobs', { token: `raw:bearer ${TOKEN}` });
    expect(answer.status).toBe(200);
  });

  test('without --token, one vr_sandbox_ token is generated and accepted', async () => {
    const sandbox = await startSandbox({ port: 0 });
    try {
      expect(sandbox.tokens).toHaveLength(1);
      const [token] = sandbox.tokens;
      expect(token).toMatch(/^vr_sandbox_[0-9a-f]{32}$/);
      expect((await call(sandbox.baseUrl, 'GET', '/api/jobs', { token })).status).toBe(200);
    } finally {
      await sandbox.close();
    }
  });
});
