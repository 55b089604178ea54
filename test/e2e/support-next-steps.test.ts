/**
 * Every error of the support commands (`jobs list`, `jobs content`, `jobs create`, `download`,
 * `login`) says what to do next, in the user's terms, through the built binary: a failing service, a
 * request it refuses (a 4xx), an answer outside the interface, one that is not JSON, a download link
 * refused, a file that cannot be kept, a name that cannot be saved.
 */
import type { ServerResponse } from 'node:http';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { isolatedEnv, runCli, tempDirPerTest } from '../helpers/cli.js';
import {
  type ScriptedHandler,
  sendJson,
  sendJsonText,
  startScriptedServer,
} from '../helpers/scripted-server.js';
import { resultWav } from '../helpers/result-wav.js';

const TOKEN = 'vr_nextstep_0123456789abcdef';
const CONTENT = /^\/api\/jobs\/[^/]+\/content$/;
const LINK = /\/files\/download-url$/;
const ESC = '\u001b';
const dir = tempDirPerTest('vredact-next-steps-');

const FAILING_HINT = 'hint: the service is failing; try again later, or raise --max-retries';
// The base URL comes from VREDACT_BASE_URL, which the hint names (not `vredact config get base-url`).
const ANSWER_HINT =
  "hint: check that the base URL points at the service (the URL set in VREDACT_BASE_URL); if it does, report this answer to the service's operators";

async function run(handler: ScriptedHandler, args: string[], input?: string) {
  const server = await startScriptedServer(handler);
  try {
    const env = isolatedEnv(join(dir.path, '.config'), {
      VREDACT_BASE_URL: server.baseUrl,
      VREDACT_TOKEN: TOKEN,
    });
    const result = await runCli([...args, '--max-retries', '0'], {
      env,
      ...(input === undefined ? {} : { input }),
    });
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
          /^error: a\.wav: downloading a\.wav: the download link's host 127\.0\.0\.1:\d+ refused the link \(403\); it may have expired; run the same command again for a fresh link$/,
        ),
        'error: b.wav: getting a download URL for b.wav: the service answered 500 Internal Server Error: boom; the service is failing; try again later, or raise --max-retries',
      ]),
    );
  });
});

describe('an answer outside the interface', () => {
  test.each([
    [['jobs', 'content', 'job1'], 400, 'Bad Request'],
    [['jobs', 'content', 'job1'], 422, 'Unprocessable Entity'],
    // `-o OUT`: the test's own folder, known only inside the test.
    [['download', 'job1', '-o', 'OUT'], 400, 'Bad Request'],
  ])(
    '%j answered %i for the job: the error, then to check the job id, exit 1',
    async (args, status, words) => {
      const result = await run(
        (_req, res) => sendJson(res, status, { error: status, message: 'Invalid job id' }),
        args.map((arg) => (arg === 'OUT' ? join(dir.path, 'out') : arg)),
      );
      expect(result.exitCode).toBe(1);
      expect(result.stderrLines).toEqual([
        `error: reading job job1: the service answered ${status} ${words}: Invalid job id`,
        "hint: check the job id: `vredact jobs list` shows the jobs of this token; if it is listed there, report this answer to the service's operators",
      ]);
    },
  );

  test('jobs list: a list of jobs that is no list is named in plain words, then what to do', async () => {
    const result = await run((_req, res) => sendJsonText(res, 200, '{"jobs": "none"}'), ['jobs', 'list']);
    expect(result.exitCode).toBe(1);
    expect(result.stderrLines).toEqual([
      'error: listing jobs: unexpected answer from the service (jobs is text, not a list)',
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

/** A job of the files `names`: each link request answered by `link`, each file by `file`. */
function jobOf(
  names: readonly string[],
  link: (fileName: string, res: ServerResponse, baseUrl: string) => void,
  file: (res: ServerResponse) => void = (res) => res.end(resultWav(10)),
): ScriptedHandler {
  return (req, res, body) => {
    const path = req.url ?? '';
    if (CONTENT.test(path))
      return sendJson(res, 200, { jobContent: names.map((file_name) => ({ file_name })) });
    if (LINK.test(path)) {
      const { fileName } = JSON.parse(body.toString('utf8')) as { fileName: string };
      return link(fileName, res, `http://${req.headers.host ?? ''}`);
    }
    file(res);
  };
}

const linkTo = (fileName: string, res: ServerResponse, baseUrl: string) =>
  sendJson(res, 200, { signedUrl: `${baseUrl}/files/${fileName}` });

describe('a request the service refuses (a 4xx other than 401, 403, 404, 429)', () => {
  const NAME_HINT =
    "check the file name against the job's files (`vredact jobs content <jobId>`); if it is listed there, report this answer to the service's operators";

  test("download: each file whose link is refused says to check its name against the job's files, escaped, exit 1", async () => {
    const statuses: Record<string, number> = { 'a.wav': 400, 'b.wav': 409, 'c.wav': 422 };
    const result = await run(
      jobOf(['a.wav', 'b.wav', 'c.wav'], (fileName, res) =>
        sendJson(res, statuses[fileName] ?? 500, { error: 400, message: `no such file ${ESC}[2J` }),
      ),
      ['download', 'job1', '-o', join(dir.path, 'out')],
    );
    expect(result.exitCode).toBe(1);
    expect(result.stderrLines.sort()).toEqual([
      '0 downloaded, 0 skipped, 3 failed',
      `error: a.wav: getting a download URL for a.wav: the service answered 400 Bad Request: no such file \\x1b[2J; ${NAME_HINT}`,
      `error: b.wav: getting a download URL for b.wav: the service answered 409 Conflict: no such file \\x1b[2J; ${NAME_HINT}`,
      `error: c.wav: getting a download URL for c.wav: the service answered 422 Unprocessable Entity: no such file \\x1b[2J; ${NAME_HINT}`,
    ]);
  });

  test('download <jobId> <name> of a name the job does not have (400): the same next step, exit 1', async () => {
    const result = await run(
      (_req, res) => sendJson(res, 400, { error: 400, message: 'Object not found' }),
      ['download', 'job1', 'x.wav', '-o', join(dir.path, 'out')],
    );
    expect(result.exitCode).toBe(1);
    expect(result.stderrLines).toEqual([
      `error: x.wav: getting a download URL for x.wav: the service answered 400 Bad Request: Object not found; ${NAME_HINT}`,
      '0 downloaded, 0 skipped, 1 failed',
    ]);
  });

  test.each([
    [['jobs', 'list'], 400, 'listing jobs: the service answered 400 Bad Request: nope'],
    [['jobs', 'create'], 405, 'creating a job: the service answered 405 Method Not Allowed: nope'],
  ])('%j answered %i: the error, then what to do, exit 1', async (args, status, message) => {
    const result = await run((_req, res) => sendJson(res, status, { error: status, message: 'nope' }), args);
    expect(result.exitCode).toBe(1);
    expect(result.stderrLines).toEqual([`error: ${message}`, ANSWER_HINT]);
  });

  test('login whose check is answered 400: the token is not stored, and what to do is said, exit 1', async () => {
    const result = await run(
      (_req, res) => sendJson(res, 400, { error: 400, message: 'nope' }),
      ['login', '--token-stdin'],
      `${TOKEN}\n`,
    );
    expect(result.exitCode).toBe(1);
    expect(result.stderrLines).toEqual([
      'error: the token could not be checked, so it was not stored: listing jobs: the service answered 400 Bad Request: nope',
      ANSWER_HINT,
    ]);
  });
});

describe('a file that cannot be kept', () => {
  test('an empty file, and a link its host answers 404, each say what to do next, exit 1', async () => {
    const result = await run(
      jobOf(['empty.wav', 'gone.wav'], linkTo, (res) => {
        if (res.req.url === '/files/gone.wav') res.writeHead(404);
        res.end();
      }),
      ['download', 'job1', '-o', join(dir.path, 'out')],
    );
    expect(result.exitCode).toBe(1);
    expect(result.stderrLines.sort()).toEqual([
      '0 downloaded, 0 skipped, 2 failed',
      "error: empty.wav: the service sent an empty file (0 bytes); run the same command again; if it is still empty, report it to the service's operators",
      expect.stringMatching(
        /^error: gone\.wav: downloading gone\.wav: the download link's host 127\.0\.0\.1:\d+ answered 404 Not Found; run the same command again for a fresh link; if it fails again, report it to the service's operators$/,
      ),
    ]);
  });
});

describe('names that cannot be saved (failed by the name alone, never asked for)', () => {
  test('no base name, one too long, and two that reduce to one base name each say what to do next, exit 1', async () => {
    const long = `${'x'.repeat(300)}.wav`;
    const result = await run(jobOf(['/', long, 'a/b.wav', 'c/b.wav'], linkTo), [
      'download',
      'job1',
      '-o',
      join(dir.path, 'out'),
    ]);
    expect(result.exitCode).toBe(1);
    expect(String(result.stdout)).toBe(join(dir.path, 'out', 'b.wav'));
    expect(result.stderrLines.sort()).toEqual([
      '1 downloaded, 0 skipped, 3 failed',
      "error: /: the file name has no usable base name; report the listing to the service's operators",
      'error: c/b.wav: a/b.wav is saved under the same name; download it by its name into another folder: `vredact download <jobId> <fileName> -o <folder>`',
      `error: ${long}: its name is 304 bytes long, more than the 255 a file name may have; report the listing to the service's operators`,
    ]);
  });
});

describe('a usage error', () => {
  test('jobs list --all --limit says which to give, exit 2', async () => {
    const result = await run(
      (_req, res) => sendJson(res, 200, { jobs: [] }),
      ['jobs', 'list', '--all', '--limit', '3'],
    );
    expect(result.exitCode).toBe(2);
    expect(result.stderrLines).toEqual([
      'error: --all and --limit cannot be used together',
      'hint: give one: --limit <n> for the newest n jobs, or --all for every job',
    ]);
  });
});

describe('a refused token (401), named by where it came from', () => {
  const CONFIG_HINT =
    'hint: run `vredact login` (or `vredact config set token -`) with a valid token, then try again';

  test.each([
    [
      'VREDACT_TOKEN',
      { VREDACT_TOKEN: TOKEN },
      [],
      'hint: the token comes from VREDACT_TOKEN: correct it, or unset it to use the one `vredact login` stores',
    ],
    [
      '--token',
      {},
      ['--token', TOKEN],
      'hint: the token comes from --token: give the right one, or leave --token out to use VREDACT_TOKEN or the stored token',
    ],
    ['the config file', {}, [], CONFIG_HINT],
  ])(
    'jobs list with the token from %s: the hint says what to do for that source, exit 3',
    async (_source, extra: Record<string, string>, flags: string[], hint) => {
      const server = await startScriptedServer((_req, res) =>
        sendJson(res, 401, { error: 401, message: 'invalid token' }),
      );
      try {
        const configDir = join(dir.path, '.config');
        const env = isolatedEnv(configDir, { VREDACT_BASE_URL: server.baseUrl, ...extra });
        const stored = await runCli(['config', 'set', 'token', '-'], { env, input: `${TOKEN}\n` });
        expect(stored.exitCode, String(stored.stderr)).toBe(0);
        const result = await runCli(['jobs', 'list', ...flags], { env });
        expect(result.exitCode).toBe(3);
        const lines = String(result.stderr)
          .trimEnd()
          .split('\n')
          .filter((line) => !line.startsWith('warning: --token is visible'));
        expect(lines).toEqual([
          'error: listing jobs: the service answered 401 Unauthorized: invalid token',
          hint,
        ]);
      } finally {
        await server.close();
      }
    },
  );
});
