/**
 * A result counts as done only when verified: the built binary against a hostile stand-in of the
 * service that answers a text body, WAVs cut short, a WAV far too short, and an endless one. Each
 * ends `failed`, leaves nothing under the output name, and is sent again by a re-run.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { ServerResponse } from 'node:http';
import { describe, expect, it } from 'vitest';
import { isolatedEnv, runCli, tempDir } from '../helpers/cli.js';
import { jsonLines, listFiles } from '../helpers/e2e.js';
import { makeWav } from '../helpers/mp3.js';
import { sendJson, startScriptedServer } from '../helpers/scripted-server.js';

const REDACT = '/api/speech-to-speech-biometric-redaction';

type Answer = (res: ServerResponse) => void;

const answers: Array<[string, Answer, RegExp]> = [
  [
    'a text body labelled audio/wav',
    (res) => {
      res.writeHead(200, { 'content-type': 'audio/wav', 'content-length': 24 });
      res.end('{"status":"processing"}\n');
    },
    /not a WAV file/,
  ],
  [
    'a WAV cut short, without Content-Length',
    (res) => {
      res.writeHead(200, { 'content-type': 'audio/wav' });
      res.end(makeWav(10).subarray(0, 3000));
    },
    /cut short/,
  ],
  [
    'a WAV cut short by a dropped connection, with Content-Length',
    (res) => {
      const wav = makeWav(10);
      res.writeHead(200, { 'content-type': 'audio/wav', 'content-length': wav.length });
      res.write(wav.subarray(0, 3000), () => res.destroy());
    },
    /network error|terminated|closed|other side/i,
  ],
  [
    'a WAV far shorter than its input',
    (res) => {
      const wav = makeWav(1);
      res.writeHead(200, { 'content-type': 'audio/wav', 'content-length': wav.length });
      res.end(wav);
    },
    /lasts 1 s, the input 10 s \(allowed: 8 s to 12 s/,
  ],
  [
    'an endless WAV',
    (res) => {
      const header = makeWav(10).subarray(0, 44);
      header.writeUInt32LE(0xffffffff, 40);
      res.writeHead(200, { 'content-type': 'audio/wav' });
      res.write(header);
      const zeros = Buffer.alloc(64 * 1024);
      let sent = 0;
      const more = () => {
        while (!res.destroyed && sent < 64 * 1024 * 1024) {
          sent += zeros.length;
          if (!res.write(zeros)) return void res.once('drain', more);
        }
        res.end();
      };
      res.on('close', () => {
        sent = Number.POSITIVE_INFINITY;
      });
      more();
    },
    /cut off past/,
  ],
];

describe('vredact redact: verified results', () => {
  it.each(answers)('%s: failed, nothing kept, sent again by a re-run', async (_name, answer, reason) => {
    const temp = await tempDir('vredact-results-');
    let uploads = 0;
    let good = false;
    const server = await startScriptedServer((req, res) => {
      if (req.method === 'POST' && req.url === REDACT) {
        uploads++;
        if (!good) return answer(res);
        const wav = makeWav(10);
        res.writeHead(200, { 'content-type': 'audio/wav', 'content-length': wav.length });
        return void res.end(wav);
      }
      if (req.method === 'GET' && req.url === '/api/jobs') return sendJson(res, 200, { jobs: [] });
      sendJson(res, 404, { error: 404, message: 'not here' });
    });
    try {
      await writeFile(join(temp.path, 'call.wav'), makeWav(10));
      const env = isolatedEnv(join(temp.path, '.config'), {
        VREDACT_BASE_URL: server.baseUrl,
        VREDACT_TOKEN: 'vr_test_results',
        VREDACT_MAX_RETRIES: '0',
      });
      const run = () =>
        runCli(['redact', 'call.wav', '-o', 'out', '--json', '--max-retries', '0'], { env, cwd: temp.path });
      const first = await run();
      expect(first.exitCode).toBe(1);
      expect(jsonLines(first.stdout)[0]).toMatchObject({
        status: 'failed',
        reason: expect.stringMatching(reason),
      });
      expect(
        (await listFiles(join(temp.path, 'out'))).filter((name) => !name.startsWith('.vredact/')),
      ).toEqual([]);
      expect(uploads).toBe(1);

      good = true;
      const second = await run();
      expect(second.exitCode).toBe(0);
      expect(jsonLines(second.stdout)[0]).toMatchObject({ status: 'done' });
      expect(uploads).toBe(2);
      expect(Buffer.compare(await readFile(join(temp.path, 'out', 'call.wav')), makeWav(10))).toBe(0);
    } finally {
      await server.close();
      await temp.cleanup();
    }
  });
});
