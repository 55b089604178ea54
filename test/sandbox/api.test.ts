import { expect, test } from 'vitest';
import { call, startTestSandbox, useCleanup } from '../helpers/sandbox-api.js';

useCleanup();

test('an unknown path is a 404 with an error body; a wrong method a 405', async () => {
  const sandbox = await startTestSandbox();
  const unknown = await call(sandbox.baseUrl, 'GET', '/api/nothing-here');
  expect(unknown.status).toBe(404);
  expect(unknown.json()).toMatchObject({ error: 404 });
  const wrong = await call(sandbox.baseUrl, 'DELETE', '/api/jobs');
  expect(wrong.status).toBe(405);
  expect(wrong.json()).toMatchObject({ error: 405 });
});
