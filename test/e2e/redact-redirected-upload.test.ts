/**
 * The fate of an upload answered with a redirect (never followed: the recording would go to another
 * host). A 301, 302, 307 or 308 says the request was not processed there (RFC 9110 15.4): the file
 * fails, no `uploading` is left open, and the next run sends it again without looking for its job. A
 * 303 See Other after a POST says it was processed, its result elsewhere: it may have been taken, so
 * the next run looks for its job first.
 */
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { BIN, isolatedEnv, runCli, tempDirPerTest } from '../helpers/cli.js';
import { jsonLines } from '../helpers/e2e.js';
import { runInPty } from '../helpers/pty.js';
import { type ScriptedServer, sendJson, startScriptedServer } from '../helpers/scripted-server.js';
import { answerWithSpeech, speechInputs } from '../helpers/speech-files.js';
import { readJournal } from '../helpers/journal.js';

const TOKEN = 'vr_redirected_0123456789abcdef';
const REDACTION = '/api/speech-to-speech-biometric-redaction';
const dir = tempDirPerTest('vredact-redirected-upload-');

/**
 * A service whose upload answers `redirect` (a status, and a Location unless it has none) until it is
 * cleared, then the input's own bytes as its result; the jobs list is empty.
 */
async function redirectingService(redirect: { status: number; location?: string }) {
  const state: { redirect?: typeof redirect } = { redirect };
  const server = await startScriptedServer(async (req, res) => {
    const path = (req.url ?? '').split('?')[0];
    if (req.method === 'POST' && path === REDACTION) {
      if (!state.redirect) return answerWithSpeech(res);
      // Written raw: a Location is data from the service, and may hold bytes a terminal acts on.
      const { status, location } = state.redirect;
      res.writeHead(status, location === undefined ? {} : { location });
      res.end();
      return;
    }
    if (req.method === 'GET' && path === '/api/jobs') return sendJson(res, 200, { jobs: [] });
    sendJson(res, 404, { error: 404, message: 'not found' });
  });
  return { server, stopRedirecting: () => delete state.redirect };
}

function count(server: ScriptedServer, method: string, path: string): number {
  return server.received.filter((request) => request.method === method && request.url.split('?')[0] === path)
    .length;
}

async function journalEvents(out: string): Promise<string[]> {
  return (await readJournal(out)).map((line) => String(line.event));
}

async function run(server: ScriptedServer, inputs: string, out: string, json = true) {
  const env = isolatedEnv(join(dir.path, '.config'), {
    VREDACT_BASE_URL: server.baseUrl,
    VREDACT_TOKEN: TOKEN,
  });
  const result = await runCli(['redact', inputs, '-o', out, ...(json ? ['--json'] : [])], {
    env,
    cwd: dir.path,
  });
  return { result, files: json ? jsonLines(result.stdout).filter((line) => 'input' in line) : [] };
}

describe('an upload answered with a redirect', () => {
  test('a 307 was not taken: failed with the status and where it points, no open uploading, the re-run sends it again without a look-up', async () => {
    // A C1 control (CSI) in the Location: shown escaped, never raw.
    const { server, stopRedirecting } = await redirectingService({
      status: 307,
      location: 'https://moved.example.net\x9b31m/api/speech-to-speech-biometric-redaction',
    });
    try {
      const inputs = await speechInputs(dir.path, 1);
      const out = join(dir.path, 'out');
      const first = await run(server, inputs, out);
      expect(first.result.exitCode).toBe(1);
      expect(first.files).toHaveLength(1);
      const [file] = first.files;
      expect(file?.status).toBe('failed');
      const reason = String(file?.reason);
      expect(reason).toMatch(/^redacting .*: the service answered 307 Temporary Redirect; /);
      expect(reason).toContain('it redirects to https://moved.example.net\\x9b31m/api/');
      expect(reason).not.toContain('\x9b');
      expect(reason).not.toContain('may have taken it');
      // Not an address to set (no URL parses with a control in its host): where it is set.
      expect(reason).toMatch(
        /set the base URL to its new address \(it is the URL set in VREDACT_BASE_URL\)$/,
      );
      // The upload's line is closed by the failure: nothing for the next run to look for.
      expect(await journalEvents(out)).toEqual(['uploading', 'failed']);
      expect(count(server, 'POST', REDACTION)).toBe(1);

      stopRedirecting();
      const second = await run(server, inputs, out);
      expect(second.result.exitCode, String(second.result.stderr)).toBe(0);
      expect(second.files).toEqual([{ input: 'in/call-0.wav', output: 'out/call-0.wav', status: 'done' }]);
      expect(count(server, 'GET', '/api/jobs')).toBe(0);
      expect(count(server, 'POST', REDACTION)).toBe(2);
      expect((await journalEvents(out)).at(-1)).toBe('done');
    } finally {
      await server.close();
    }
  });

  test('a 307 with no Location was not taken either: failed with the base-URL hint, no open uploading; on a terminal the problem list (stderr) has the hint', async () => {
    const { server } = await redirectingService({ status: 307 });
    const hint =
      "it redirects without saying where (no Location), and vredact does not follow redirects of the service: the base URL is not the service's own address (check http:// against https://, and its path): it is the URL set in VREDACT_BASE_URL";
    try {
      const inputs = await speechInputs(dir.path, 1);
      const out = join(dir.path, 'out');
      const piped = await run(server, inputs, out, false);
      expect(piped.result.exitCode).toBe(1);
      // Not a terminal: the file's line on stdout, the summary on stderr.
      expect(String(piped.result.stdout)).toBe(
        `failed\tin/call-0.wav\tredacting call-0.wav: the service answered 307 Temporary Redirect; ${hint}`,
      );
      expect(String(piped.result.stderr)).toContain('failed 1');
      // The upload's line is closed by the failure, as for a redirect that says where.
      expect(await journalEvents(out)).toEqual(['uploading', 'failed']);

      const env = isolatedEnv(join(dir.path, '.config'), {
        VREDACT_BASE_URL: server.baseUrl,
        VREDACT_TOKEN: TOKEN,
      });
      const term = runInPty(`node ${BIN} redact ${inputs} -o ${out} --no-progress`, {
        cwd: dir.path,
        env,
        columns: 500,
      });
      try {
        expect(await term.exited).toBe(1);
        expect(term.output().replace(/\r/g, '')).toContain(hint);
      } finally {
        term.kill();
      }
      expect(await journalEvents(out)).toEqual(['uploading', 'failed', 'uploading', 'failed']);
      expect(count(server, 'POST', REDACTION)).toBe(2);
      expect(count(server, 'GET', '/api/jobs')).toBe(0);
    } finally {
      await server.close();
    }
  });

  test('a 303 See Other may have been taken, as before: its uploading stays, and the re-run looks for its job first', async () => {
    const { server, stopRedirecting } = await redirectingService({
      status: 303,
      location: 'https://results.example.net/api/jobs/abc',
    });
    try {
      const inputs = await speechInputs(dir.path, 1);
      const out = join(dir.path, 'out');
      const first = await run(server, inputs, out);
      expect(first.result.exitCode).toBe(1);
      const [file] = first.files;
      expect(file?.status).toBe('failed');
      expect(String(file?.reason)).toMatch(
        /the service answered 303 See Other; the service may have taken it: the next run looks for its job before sending again; it redirects to https:\/\/results\.example\.net\/api\/jobs\/abc/,
      );
      // Its uploading line, written again as the run looked for its job (answerLost).
      const lines = await readJournal(out);
      expect(lines.map((line) => line.event)).toEqual(['uploading', 'uploading']);
      expect(lines[1]).toMatchObject({ answerLost: true });

      stopRedirecting();
      await run(server, inputs, out);
      expect(count(server, 'GET', '/api/jobs')).toBeGreaterThan(0);
    } finally {
      await server.close();
    }
  });
});
