/**
 * A file whose upload the service refuses in a way that points at the setup (a base URL ending in
 * /api, a redirect, a 4xx outside the interface, a 2xx that is neither audio nor a job) says what to
 * do next in its own line, as a file of `download` does: `redact` prints no `hint:` line per file.
 */
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { isolatedEnv, runCli, tempDirPerTest } from '../helpers/cli.js';
import { jsonLines } from '../helpers/e2e.js';
import { type ScriptedHandler, sendJson, startScriptedServer } from '../helpers/scripted-server.js';
import { speechInputs } from '../helpers/speech-files.js';

const TOKEN = 'vr_nextstep_0123456789abcdef';
const dir = tempDirPerTest('vredact-redact-next-steps-');
// The base URL comes from VREDACT_BASE_URL, which the hint names.
const ANSWER_HINT =
  "check that the base URL points at the service (the URL set in VREDACT_BASE_URL); if it does, report this answer to the service's operators";

async function redact(handler: ScriptedHandler, basePath = '') {
  const server = await startScriptedServer(handler);
  try {
    const env = isolatedEnv(join(dir.path, '.config'), {
      VREDACT_BASE_URL: `${server.baseUrl}${basePath}`,
      VREDACT_TOKEN: TOKEN,
    });
    const inputs = await speechInputs(dir.path, 2);
    const run = await runCli(['redact', inputs, '-o', join(dir.path, 'out'), '--json'], {
      env,
      cwd: dir.path,
    });
    const files = jsonLines(run.stdout).filter((line) => 'input' in line);
    return { run, files, baseUrl: server.baseUrl };
  } finally {
    await server.close();
  }
}

describe("a refused upload's line says what to do next", () => {
  test('a base URL ending in /api: each file says to set it without /api, exit 1', async () => {
    const { run, files, baseUrl } = await redact((_req, res) => {
      res.writeHead(404, { 'content-type': 'text/html' });
      res.end('<html>Not Found</html>');
    }, '/api');
    expect(run.exitCode).toBe(1);
    expect(files).toHaveLength(2);
    for (const file of files) {
      expect(file.status).toBe('failed');
      expect(file.reason).toMatch(/the service answered 404 Not Found; /);
      expect(file.reason).toContain(`the base URL should not end in /api`);
      expect(file.reason).toContain(`set it to ${baseUrl}`);
    }
  });

  test('a redirect of the upload: each file names where it points and says to set the base URL there', async () => {
    const { run, files } = await redact((_req, res) => {
      res.writeHead(308, { location: 'https://moved.example.com/api/speech-to-speech-biometric-redaction' });
      res.end();
    });
    expect(run.exitCode).toBe(1);
    expect(files).toHaveLength(2);
    for (const file of files) {
      expect(file.status).toBe('failed');
      expect(file.reason).toContain(
        'it redirects to https://moved.example.com/api/speech-to-speech-biometric-redaction, and vredact does not follow redirects of the service',
      );
      // What to do comes last, after what becomes of the file.
      expect(file.reason).toMatch(
        /set the base URL to https:\/\/moved\.example\.com \(it is the URL set in VREDACT_BASE_URL\)$/,
      );
    }
  });

  test('a 400, and a 200 page that is neither audio nor a job id: check the base URL, then report the answer', async () => {
    const refused = await redact((_req, res) => sendJson(res, 400, { error: 400, message: 'bad form' }));
    expect(refused.run.exitCode).toBe(1);
    for (const file of refused.files) {
      expect(file.reason).toMatch(/the service answered 400 Bad Request: bad form; /);
      expect(file.reason).toMatch(new RegExp(`${escape(ANSWER_HINT)}$`));
    }
    // A JSON object would be an acceptance naming no job: a portal's page is not.
    const odd = await redact((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end('<html>portal</html>');
    });
    expect(odd.run.exitCode).toBe(1);
    for (const file of odd.files) {
      expect(file.reason).toContain('neither audio nor a job id');
      expect(file.reason).toMatch(new RegExp(`${escape(ANSWER_HINT)}$`));
    }
  });

  test('a 500 keeps its line as it was: no hint of retries that an upload does not get', async () => {
    const { files } = await redact((_req, res) => sendJson(res, 500, { error: 500, message: 'boom' }));
    // The look for its job met the listing's 500 too: said after the reason, as what that look met.
    for (const file of files) {
      expect(file.reason).toMatch(
        /: the service answered 500 Internal Server Error: boom; the service may have taken it: the next run looks for its job before sending again; its last look: listing jobs: the service answered 500 Internal Server Error: boom$/,
      );
    }
  });
});

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
