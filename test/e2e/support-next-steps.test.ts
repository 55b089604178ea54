/**
 * Every error of the support commands (`jobs list`, `jobs content`, `download`) says what to do next,
 * in the user's terms, through the built binary: a failing service, an answer outside the interface,
 * one that is not JSON, a download link refused.
 */
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { isolatedEnv, runCli, tempDirPerTest } from '../helpers/cli.js';
import {
  type ScriptedHandler,
  sendJson,
  sendJsonText,
  startScriptedServer,
} from '../helpers/scripted-server.js';

const TOKEN = 'vr_nextstep_0123456789abcdef';
const CONTENT = /^\/api\/jobs\/[^/]+\/content$/;
const dir = tempDirPerTest('vredact-next-steps-');

const FAILING_HINT = 'hint: the service is failing; try again later, or raise --max-retries';
const ANSWER_HINT =
  "hint: check that the base URL points at the service (`vredact config get base-url`); if it does, report this answer to the service's operators";

async function run(handler: ScriptedHandler, args: string[]) {
  const server = await startScriptedServer(handler);
  try {
    const env = isolatedEnv(join(dir.path, '.config'), {
      VREDACT_BASE_URL: server.baseUrl,
      VREDACT_TOKEN: TOKEN,
    });
    const result = await runCli([...args, '--max-retries', '0'], { env });
    return { ...result, stderrLines: String(result.stderr).trimEnd().split('\n') };
  } finally {
    await server.close();
  }
}

describe('a service that is failing', () => {
  test('jobs list answered 502: the error, then what to do, exit 1', async () => {
    const result = await run(
      (_req, res) => {
        res.writeHead(502, { 'content-type': 'text/html' });
        res.end('<html>Bad Gateway</html>');
      },
      ['jobs', 'list'],
    );
    expect(result.exitCode).toBe(1);
    expect(result.stderrLines).toEqual([
      'error: listing jobs: the service answered 502 Bad Gateway',
      FAILING_HINT,
    ]);
  });

  test("download: a file's link refused and another's link request failing each say what to do, exit 1", async () => {
    const result = await run(
      (req, res, body) => {
        const path = req.url ?? '';
        if (CONTENT.test(path)) {
          return sendJson(res, 200, { jobContent: [{ file_name: 'a.wav' }, { file_name: 'b.wav' }] });
        }
        if (path.endsWith('/files/download-url')) {
          const { fileName } = JSON.parse(body.toString('utf8')) as { fileName: string };
          if (fileName === 'b.wav') return sendJson(res, 500, { error: 500, message: 'boom' });
          return sendJson(res, 200, { signedUrl: '/files/a.wav' });
        }
        res.writeHead(403);
        res.end('expired');
      },
      ['download', 'job1', '-o', join(dir.path, 'out')],
    );
    expect(result.exitCode).toBe(1);
    expect(result.stderrLines).toEqual(
      expect.arrayContaining([
        expect.stringMatching(
          /^error: a\.wav: downloading a\.wav from 127\.0\.0\.1:\d+: the download link was refused \(403\); it may have expired; run the same command again for a fresh link$/,
        ),
        'error: b.wav: getting a download URL for b.wav: the service answered 500 Internal Server Error: boom; the service is failing; try again later, or raise --max-retries',
      ]),
    );
  });
});

describe('an answer outside the interface', () => {
  test('jobs list: a job id that is an object is named in plain words, then what to do', async () => {
    const result = await run(
      (_req, res) => sendJsonText(res, 200, '{"jobs": [{"job_id": {"a": 1}}]}'),
      ['jobs', 'list'],
    );
    expect(result.exitCode).toBe(1);
    expect(result.stderrLines).toEqual([
      'error: listing jobs (item 1): unexpected answer from the service (job_id is an object, not text or a number)',
      ANSWER_HINT,
    ]);
  });

  test('jobs content: no list, or a list that is not one, is named in plain words, then what to do', async () => {
    const missing = await run((_req, res) => sendJson(res, 200, { jobs: [] }), ['jobs', 'content', 'job1']);
    expect(missing.exitCode).toBe(1);
    expect(missing.stderrLines).toEqual([
      'error: reading job job1: unexpected answer from the service (jobContent is missing)',
      ANSWER_HINT,
    ]);
    const notList = await run(
      (_req, res) => sendJson(res, 200, { jobContent: { a: 1 } }),
      ['jobs', 'content', 'job1'],
    );
    expect(notList.exitCode).toBe(1);
    expect(notList.stderrLines).toEqual([
      'error: reading job job1: unexpected answer from the service (jobContent is not a list)',
      ANSWER_HINT,
    ]);
  });

  test('jobs content: a listing that is not JSON names the byte where it stops being JSON, then what to do', async () => {
    const text = '{"jobContent": [{"id": 1, "file_name": "a.wav"}, {"id": 2x}]}';
    const result = await run((_req, res) => sendJsonText(res, 200, text), ['jobs', 'content', 'job1']);
    expect(result.exitCode).toBe(1);
    expect(result.stderrLines).toEqual([
      `error: reading job job1: the service's answer is not valid JSON at byte ${text.indexOf('x') + 1}`,
      ANSWER_HINT,
    ]);
  });

  test('download: a listing cut short says where it ends, then what to do', async () => {
    const text = '{"jobContent": [{"id": 1, "file_name": "a.w';
    const result = await run(
      (_req, res) => sendJsonText(res, 200, text),
      ['download', 'job1', '-o', join(dir.path, 'out')],
    );
    expect(result.exitCode).toBe(1);
    expect(result.stderrLines).toEqual(
      expect.arrayContaining([
        `error: reading job job1: the service's answer ends after ${Buffer.byteLength(text)} bytes, before its JSON is complete`,
        ANSWER_HINT,
      ]),
    );
  });
});
