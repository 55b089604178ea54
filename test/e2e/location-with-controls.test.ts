/**
 * A 202 whose `Location` holds a tab inside the job's path: a URL parser drops it, and the job it
 * would then name (`abc` for `ab<TAB>c`) is another upload's. vredact takes no job from it: the upload
 * is one accepted without naming its job, never collected as another's result.
 */
import { join } from 'node:path';
import { expect, test } from 'vitest';
import { isolatedEnv, runCli, tempDirPerTest } from '../helpers/cli.js';
import { startScriptedServer } from '../helpers/scripted-server.js';
import { speechInputs } from '../helpers/speech-files.js';

const TOKEN = 'vr_location_0123456789abcdef';
const REDACTION = '/api/speech-to-speech-biometric-redaction';
const dir = tempDirPerTest('vredact-location-controls-');

test('a Location whose path holds a tab names no job: the job without the tab is never asked for', async () => {
  const server = await startScriptedServer((req, res) => {
    if (req.method === 'POST' && req.url === REDACTION) {
      res.writeHead(202, { 'content-type': 'application/json', location: '/api/jobs/ab\tc' });
      res.end('{"status":"accepted"}');
      return;
    }
    // The jobs area is none this test needs: a listing refused for good ends the look at once.
    res.writeHead(404, { 'content-type': 'application/json' });
    res.end('{"error":"not found"}');
  });
  try {
    const env = isolatedEnv(dir.path, { VREDACT_BASE_URL: server.baseUrl, VREDACT_TOKEN: TOKEN });
    const out = join(dir.path, 'out');
    const result = await runCli(['redact', await speechInputs(dir.path, 1), '-o', out], {
      env,
      cwd: dir.path,
    });
    expect(result.exitCode, String(result.stderr)).toBe(1);
    expect(String(result.stdout)).toMatch(
      /^pending\tin\/call-0\.wav\t.*accepted by the service without naming its job/m,
    );
    const asked = server.received.map((request) => request.url);
    expect(asked.filter((url) => url.startsWith('/api/jobs/ab'))).toEqual([]);
    expect(asked.filter((url) => url === REDACTION)).toHaveLength(1);
  } finally {
    await server.close();
  }
});
