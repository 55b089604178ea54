/**
 * An answer that comes before the upload is fully sent (a proxy's 413 past its body limit, a 401, a
 * 429), the connection then closed with the rest unread (a reset) or read and thrown away after a FIN,
 * end to end against the built binary. Node.js ended such a connection on the failed write, answer
 * unread: the file failed as "the service may have taken it" (EPIPE), the journal kept `uploading`,
 * and the next run looked for its job. Now the answer decides, as any answer does.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { pcm16MonoHeader } from '../../src/audio/wav-encode.js';
import { ExitCode } from '../../src/errors.js';
import { isolatedEnv, runCli, tempDirPerTest } from '../helpers/cli.js';
import { jsonLines } from '../helpers/e2e.js';
import {
  type EarlyAnswerOptions,
  type EarlyAnswerServer,
  startEarlyAnswerServer,
} from '../helpers/early-answer-server.js';
import { latestEvents } from '../helpers/journal.js';

const FILES = 4;
/** 60 s of 16 kHz 16-bit mono: 1.8 MiB, past nginx's default 1 MB limit, under the service's 10 MB. */
const SAMPLES = 60 * 16_000;
const NGINX_413 =
  '<html><head><title>413 Request Entity Too Large</title></head><body><center><h1>413 Request Entity Too Large</h1></center><hr><center>nginx</center></body></html>';

const dir = tempDirPerTest('vredact-early-');
const names = (): string[] => Array.from({ length: FILES }, (_, i) => `call-${i}`);

async function largeInputs(): Promise<string> {
  const folder = join(dir.path, 'in');
  await mkdir(folder, { recursive: true });
  const wav = Buffer.concat([pcm16MonoHeader(SAMPLES, 16_000), Buffer.alloc(SAMPLES * 2)]);
  for (const name of names()) await writeFile(join(folder, `${name}.wav`), wav);
  return folder;
}

async function redact(server: EarlyAnswerServer, inputs: string) {
  const out = join(dir.path, 'out');
  const env = isolatedEnv(join(dir.path, '.config'), {
    VREDACT_BASE_URL: server.baseUrl,
    VREDACT_TOKEN: 'vr_early_0123456789abcdef',
  });
  const result = await runCli(['redact', inputs, '-o', out, '-c', '4', '--json'], { env, timeout: 120_000 });
  const lines = jsonLines(result.stdout);
  return { exitCode: result.exitCode, stderr: String(result.stderr), lines, out };
}

const CLOSES: Array<[string, Pick<EarlyAnswerOptions, 'closeWith' | 'readFirst'>]> = [
  ['reset, the body unread', { closeWith: 'rst' }],
  ['reset after 256 KiB of the body', { closeWith: 'rst', readFirst: 256 * 1024 }],
  ['FIN, the rest of the body thrown away', { closeWith: 'fin' }],
];

describe('an answer before the upload is fully sent', () => {
  test.each(CLOSES)(
    "a proxy's 413, the connection closed by %s: each file fails with the 413 and why",
    async (_name, close) => {
      const server = await startEarlyAnswerServer({
        ...close,
        answer: () => ({ status: 413, body: NGINX_413 }),
      });
      try {
        const inputs = await largeInputs();
        const run = await redact(server, inputs);

        expect(run.exitCode, run.stderr).toBe(ExitCode.partial);
        expect(run.lines.at(-1)?.summary).toEqual({
          done: 0,
          skipped: 0,
          rejected: 0,
          failed: FILES,
          pending: 0,
        });
        const reasons = run.lines
          .filter((line) => line.status === 'failed')
          .map((line) => String(line.reason));
        expect(reasons).toHaveLength(FILES);
        for (const reason of reasons) {
          expect(reason).toMatch(/: the service answered 413 Payload Too Large; /);
          expect(reason).toContain(
            "the service or a proxy in front of it refused the file as too large (1.8 MiB, under the service's 10 MB limit)",
          );
          expect(reason).not.toMatch(/EPIPE|ECONNRESET|may have taken it/);
        }
        expect(run.stderr).not.toMatch(/EPIPE|ECONNRESET|may have taken it/);
        // Refused, so not `uploading`: the next run sends them again, with no look-up first.
        expect(Object.values(await latestEvents(run.out))).toEqual(Array(FILES).fill('failed'));
        expect(server.early.size).toBe(FILES);

        const again = await redact(server, inputs);
        expect(again.exitCode, again.stderr).toBe(ExitCode.partial);
        expect(server.requests.filter((request) => request.startsWith('GET /api/jobs'))).toEqual([]);
        expect([...server.early.values()]).toEqual(Array(FILES).fill(2));
      } finally {
        await server.close();
      }
    },
  );

  test.each(CLOSES)('a 401, the connection closed by %s: the token-refused stop', async (_name, close) => {
    const server = await startEarlyAnswerServer({
      ...close,
      answer: () => ({
        status: 401,
        headers: { 'content-type': 'application/json' },
        body: '{"message":"bad token"}',
      }),
    });
    try {
      const run = await redact(server, await largeInputs());

      expect(run.exitCode, run.stderr).toBe(ExitCode.auth);
      expect(run.stderr).toMatch(/answered 401 Unauthorized: bad token/);
      expect(`${run.stderr}${JSON.stringify(run.lines)}`).not.toMatch(/EPIPE|ECONNRESET|may have taken it/);
    } finally {
      await server.close();
    }
  });

  test.each(CLOSES)(
    'a 429 Retry-After: 1, the connection closed by %s: the throttle, then each file done once',
    async (_name, close) => {
      const server = await startEarlyAnswerServer({
        ...close,
        answer: (_file, index) =>
          index === 0 ? { status: 429, headers: { 'retry-after': '1' } } : undefined,
      });
      try {
        const run = await redact(server, await largeInputs());

        expect(run.exitCode, run.stderr).toBe(0);
        expect(run.lines.at(-1)?.summary).toEqual({
          done: FILES,
          skipped: 0,
          rejected: 0,
          failed: 0,
          pending: 0,
        });
        expect(Object.values(await latestEvents(run.out))).toEqual(Array(FILES).fill('done'));
        expect([...server.early.keys()].sort()).toEqual(names());
        expect([...server.answered.entries()].sort()).toEqual(names().map((name) => [name, 1]));
        expect(server.requests.filter((request) => request.startsWith('GET /api/jobs'))).toEqual([]);
      } finally {
        await server.close();
      }
    },
  );
});
