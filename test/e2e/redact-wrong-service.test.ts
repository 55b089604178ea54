/**
 * A batch pointed at something that answers but is not the service (a single-page app's page, a
 * server that knows no such path or method, one that names jobs that do not exist) stops sending
 * recordings after 3 such answers in a row: at `-c C`, at most C + 2 files reach it. The files not
 * sent are pending, and a run against the service sends each of them once.
 */
import type { ServerResponse } from 'node:http';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { isolatedEnv, runCli, tempDirPerTest } from '../helpers/cli.js';
import { jsonLines } from '../helpers/e2e.js';
import {
  type ScriptedHandler,
  type ScriptedServer,
  sendJson,
  startScriptedServer,
} from '../helpers/scripted-server.js';
import { makeWav } from '../helpers/mp3.js';
import { answerWithSpeech, speechInputs } from '../helpers/speech-files.js';

const TOKEN = 'vr_wrongservice_0123456789abcdef';
const FILES = 40;
const STREAK = 3;
const UPLOAD = '/api/speech-to-speech-biometric-redaction';
const dir = tempDirPerTest('vredact-wrong-service-');
const STOPPED = (answer: string) =>
  new RegExp(
    `^error: the batch stopped: 3 uploads in a row were answered by something that is not the Voice Redaction Service \\(${answer} from 127\\.0\\.0\\.1:\\d+\\): nothing more was sent$`,
    'm',
  );
const NOT_SENT =
  'not finished: the batch stopped: uploads were answered by something that is not the Voice Redaction Service (not sent)';

async function withServer<T>(handler: ScriptedHandler, use: (server: ScriptedServer) => Promise<T>) {
  const server = await startScriptedServer(handler);
  try {
    return await use(server);
  } finally {
    await server.close();
  }
}

async function redact(server: ScriptedServer, concurrency: number, extra: readonly string[] = []) {
  const env = isolatedEnv(join(dir.path, '.config'), {
    VREDACT_BASE_URL: server.baseUrl,
    VREDACT_TOKEN: TOKEN,
  });
  const run = await runCli(
    ['redact', 'in', '-o', 'out', '--json', '-c', String(concurrency), '--no-progress', ...extra],
    { env, cwd: dir.path },
  );
  const files = jsonLines(run.stdout).filter((line) => 'input' in line);
  return { run, files, stderr: String(run.stderr) };
}

const uploadsTo = (server: ScriptedServer) =>
  server.received.filter((request) => request.method === 'POST' && request.url === UPLOAD);

/** The service: every upload redacted at once, no jobs listed. */
const theService: ScriptedHandler = async (req, res) => {
  if (req.method === 'POST' && req.url === UPLOAD) await answerWithSpeech(res);
  else sendJson(res, 200, { jobs: [] });
};

function page(status: number, contentType: string, body: string) {
  return (_req: unknown, res: ServerResponse) => {
    res.writeHead(status, { 'content-type': contentType });
    res.end(body);
  };
}

const WRONG_HOSTS = [
  {
    name: "a single-page app's 200 page",
    handler: page(200, 'text/html', '<!doctype html><html><body>app</body></html>'),
    answer: '200 OK with neither audio nor a job id',
  },
  { name: 'a 404 page', handler: page(404, 'text/html', '<html>Not Found</html>'), answer: '404 Not Found' },
  {
    name: "a framework's 404 JSON",
    handler: page(404, 'application/json', '{"detail":"Not Found"}'),
    answer: '404 Not Found',
  },
  {
    name: 'a 405',
    handler: page(405, 'text/html', '<html>Method Not Allowed</html>'),
    answer: '405 Method Not Allowed',
  },
];

describe('a batch pointed at something that is not the service', () => {
  describe.each(WRONG_HOSTS)('$name to every request', ({ handler, answer }) => {
    test.each([1, 4])(
      'at -c %i: at most C + 2 uploads reach it, the rest pending; the service then gets each file once',
      async (concurrency) => {
        await speechInputs(dir.path, FILES);
        const first = await withServer(handler, async (server) => ({
          ...(await redact(server, concurrency)),
          uploads: uploadsTo(server).length,
        }));
        expect(first.run.exitCode).toBe(1);
        expect(first.uploads).toBeGreaterThanOrEqual(STREAK);
        expect(first.uploads).toBeLessThanOrEqual(concurrency + STREAK - 1);
        expect(first.stderr).toMatch(STOPPED(answer));
        expect(first.stderr).toMatch(
          /^hint: check that the base URL points at the Voice Redaction Service \(the URL set in VREDACT_BASE_URL\)/m,
        );
        expect(first.files).toHaveLength(FILES);
        const failed = first.files.filter((file) => file.status === 'failed');
        const pending = first.files.filter((file) => file.status === 'pending');
        // Each file sent failed with what to do on its own line; no other was sent.
        expect(failed).toHaveLength(first.uploads);
        for (const file of failed)
          expect(file.reason).toMatch(/check that the base URL points at the service/);
        expect(pending).toHaveLength(FILES - first.uploads);
        for (const file of pending) expect(file.reason).toBe(NOT_SENT);

        const again = await withServer(theService, async (server) => ({
          ...(await redact(server, concurrency)),
          uploads: uploadsTo(server),
        }));
        expect(again.run.exitCode).toBe(0);
        expect(again.files.map((file) => file.status)).toEqual(Array(FILES).fill('done'));
        expect(again.uploads).toHaveLength(FILES);
        expect(again.stderr).not.toMatch(/the batch stopped/);
      },
    );
  });

  test.each([
    ['a text labelled audio/wav', 'string'],
    ['an empty JSON labelled audio/wav', '{}'],
    [
      'an MP3 labelled audio/wav',
      Buffer.from('ID3\u0004\u0000\u0000\u0000\u0000\u0000\u0000 not a redaction'),
    ],
  ])(
    'a mock answering every upload with %s stops too; each file sent fails, the rest pending',
    async (_name, body) => {
      await speechInputs(dir.path, FILES);
      const first = await withServer(
        (_req, res) => {
          res.writeHead(200, { 'content-type': 'audio/wav' });
          res.end(body);
        },
        async (server) => ({ ...(await redact(server, 4)), uploads: uploadsTo(server).length }),
      );
      expect(first.run.exitCode).toBe(1);
      expect(first.stderr).toMatch(STOPPED('a result that is no WAV file at all'));
      // Before: all 40 sent, each failing on its own line.
      expect(first.uploads).toBeGreaterThanOrEqual(STREAK);
      expect(first.uploads).toBeLessThanOrEqual(4 + STREAK - 1);
      const failed = first.files.filter((file) => file.status === 'failed');
      expect(failed).toHaveLength(first.uploads);
      for (const file of failed) expect(file.reason).toMatch(/is not a WAV file \(no RIFF\/WAVE header\)/);
      expect(first.files.filter((file) => file.status === 'pending')).toHaveLength(FILES - first.uploads);
      expect(readdirSync(join(dir.path, 'out')).filter((name) => name.endsWith('.wav'))).toEqual([]);
    },
  );

  test('a WAV cut short, as the service may send one, does not stop the batch: every file is sent', async () => {
    await speechInputs(dir.path, 8);
    const first = await withServer(
      (_req, res) => {
        // A 2-second WAV's header and its first 100 bytes of audio: a WAV, cut short.
        res.writeHead(200, { 'content-type': 'audio/wav' });
        res.end(makeWav(2).subarray(0, 144));
      },
      async (server) => ({ ...(await redact(server, 2)), uploads: uploadsTo(server).length }),
    );
    expect(first.uploads).toBe(8);
    expect(first.stderr).not.toMatch(/the batch stopped/);
    expect(first.files.map((file) => file.status)).toEqual(Array(8).fill('failed'));
  });

  test('a host naming a job for every upload (200 {"data":{"id":…}}) whose jobs are not found stops too', async () => {
    await speechInputs(dir.path, FILES);
    let named = 0;
    const first = await withServer(
      (req, res) => {
        if (req.method === 'POST') sendJson(res, 200, { data: { id: `page-${named++}` } });
        else page(404, 'text/html', '<html>Not Found</html>')(req, res);
      },
      async (server) => ({ ...(await redact(server, 1)), uploads: uploadsTo(server).length }),
    );
    expect(first.run.exitCode).toBe(1);
    expect(first.stderr).toMatch(STOPPED('a job id whose job answered 404 Not Found'));
    expect(first.uploads).toBeLessThan(FILES / 2);
    const failed = first.files.filter((file) => file.status === 'failed');
    expect(failed).toHaveLength(first.uploads);
    // Its job not found, or not looked at once the batch stopped: each is sent again by the next run.
    for (const file of failed)
      expect(file.reason).toMatch(
        /check that the base URL points at the service|was named by something that is not the Voice Redaction Service/,
      );
    expect(first.files.filter((file) => file.status === 'pending')).toHaveLength(FILES - first.uploads);

    // No job of that host is looked for at the service: every file is sent, once.
    const again = await withServer(theService, async (server) => {
      const result = await redact(server, 4);
      return { ...result, requests: server.received.map((request) => `${request.method} ${request.url}`) };
    });
    expect(again.run.exitCode).toBe(0);
    expect(again.files.map((file) => file.status)).toEqual(Array(FILES).fill('done'));
    expect(again.requests.filter((request) => request === `POST ${UPLOAD}`)).toHaveLength(FILES);
    expect(again.requests.filter((request) => request.includes('page-'))).toEqual([]);
  });

  test.each([[[]], [['--no-wait']]])(
    'a catch-all mock answering every request with the same {"id":…} stops too (%j): not every file sent, nor each waited on for --wait-timeout',
    async (extra) => {
      await speechInputs(dir.path, FILES);
      const first = await withServer(
        (_req, res) => sendJson(res, 200, { id: 'abc123' }),
        async (server) => ({ ...(await redact(server, 2, extra)), uploads: uploadsTo(server).length }),
      );
      expect(first.run.exitCode).toBe(1);
      expect(first.stderr).toMatch(STOPPED('a job id whose job answered with no list of its files'));
      // Before: all 40 sent; waiting, each then polled until --wait-timeout (2 hours by default).
      expect(first.uploads).toBeLessThanOrEqual(2 + STREAK);
    },
  );

  test.each([[[]], [['--no-wait']]])(
    'a collector answering 202 to every POST, whose job listing is a 404, stops the batch at its first listing (%j)',
    async (extra) => {
      await speechInputs(dir.path, FILES);
      const first = await withServer(
        (req, res) => {
          if (req.method === 'POST') {
            res.writeHead(202);
            res.end();
          } else page(404, 'text/html', '<html>Not Found</html>')(req, res);
        },
        async (server) => ({ ...(await redact(server, 2, extra)), uploads: uploadsTo(server).length }),
      );
      expect(first.run.exitCode).toBe(1);
      expect(first.stderr).toMatch(
        /^error: the batch stopped: uploads were accepted without a job id by something that is not the Voice Redaction Service \(its job listing: 404 Not Found, from 127\.0\.0\.1:\d+\): nothing more was sent$/m,
      );
      // Before: all 40 sent (with --no-wait, each reported accepted, exit 0).
      expect(first.uploads).toBeLessThan(FILES / 2);
    },
  );

  test('with --no-wait, uploads the service accepts without a job id cost one listing of the jobs, not one each', async () => {
    await speechInputs(dir.path, 12);
    const requests = await withServer(
      (req, res) => {
        if (req.method === 'POST') {
          res.writeHead(202);
          res.end();
        } else sendJson(res, 200, { jobs: [] });
      },
      async (server) => {
        const { run } = await redact(server, 1, ['--no-wait']);
        expect(run.exitCode, String(run.stderr)).toBe(0);
        return server.received.map((request) => `${request.method} ${request.url}`);
      },
    );
    expect(requests.filter((request) => request === `POST ${UPLOAD}`)).toHaveLength(12);
    expect(requests.filter((request) => request.startsWith('GET '))).toEqual(['GET /api/jobs']);
  });

  test('answers of the service between break the count: two 404s, then audio, over and over, never stop', async () => {
    await speechInputs(dir.path, 12);
    const run = await withServer(
      async (req, res, _body, index) => {
        if (index % 3 === 2) await answerWithSpeech(res);
        else page(404, 'text/html', '<html>Not Found</html>')(req, res);
      },
      async (server) => ({ ...(await redact(server, 1)), uploads: uploadsTo(server).length }),
    );
    expect(run.run.exitCode).toBe(1);
    expect(run.uploads).toBe(12);
    expect(run.stderr).not.toMatch(/the batch stopped/);
    const failed = run.files.filter((file) => file.status === 'failed');
    expect(failed).toHaveLength(8);
    // The upload's 404 says what to do, as the support commands' 404 does.
    for (const file of failed)
      expect(file.reason).toMatch(
        /: the service answered 404 Not Found; check that the base URL points at the service: the URL set in VREDACT_BASE_URL$/,
      );
    expect(run.files.filter((file) => file.status === 'done')).toHaveLength(4);
  });

  test('a first upload answered 404, the rest redacted: the batch goes on', async () => {
    await speechInputs(dir.path, 6);
    const run = await withServer(
      async (req, res, _body, index) => {
        if (index === 0) page(404, 'text/html', '<html>Not Found</html>')(req, res);
        else await answerWithSpeech(res);
      },
      async (server) => ({ ...(await redact(server, 1)), uploads: uploadsTo(server).length }),
    );
    expect(run.uploads).toBe(6);
    expect(run.stderr).not.toMatch(/the batch stopped/);
    expect(run.files.map((file) => file.status).sort()).toEqual([
      'done',
      'done',
      'done',
      'done',
      'done',
      'failed',
    ]);
    expect(run.files.find((file) => file.status === 'failed')?.reason).toMatch(/check that the base URL/);
  });
});
