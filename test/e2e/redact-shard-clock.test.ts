/**
 * Shards changed between nights while a clock was wrong, through the built binary against a scripted
 * service: between journals the later `at` wins, so a line written by a run whose clock was ahead
 * must not outrank what later runs did about that input.
 */
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isolatedEnv, runCli, tempDirPerTest } from '../helpers/cli.js';
import { jsonLines } from '../helpers/e2e.js';
import { REDACTION, uploads } from '../helpers/holding-service.js';
import { sendJson, startScriptedServer } from '../helpers/scripted-server.js';
import { answerWithSpeech, speechInputs } from '../helpers/speech-files.js';

const dir = tempDirPerTest('vredact-e2e-shard-clock-');

const DAY_MS = 86_400_000;

/** Moves every line of the shards' journals a day later: written by a run whose clock was a day ahead. */
async function writtenADayAhead(outDir: string): Promise<void> {
  const state = join(outDir, '.vredact');
  for (const name of (await readdir(state)).filter((file) => /^journal\.\d-of-2\.jsonl$/.test(file))) {
    const lines = (await readFile(join(state, name), 'utf8')).split('\n').filter(Boolean);
    const moved = lines.map((line) => {
      const record = JSON.parse(line) as { at: string };
      return JSON.stringify({ ...record, at: new Date(Date.parse(record.at) + DAY_MS).toISOString() });
    });
    await writeFile(join(state, name), moved.map((line) => `${line}\n`).join(''));
  }
}

describe('vredact redact: shards changed between nights, with a clock set back', () => {
  it('a file done after a failure journaled by a clock that was ahead is not sent again', async () => {
    let broken = true;
    const server = await startScriptedServer((req, res) => {
      if (req.url !== REDACTION) return sendJson(res, 404, { error: 404, message: 'not found' });
      if (!broken) return answerWithSpeech(res);
      res.writeHead(200, { 'content-type': 'audio/wav' });
      res.end('not a WAV at all');
    });
    try {
      const inputs = await speechInputs(dir.path, 1);
      const out = join(dir.path, 'out');
      const env = isolatedEnv(join(dir.path, 'config'), {
        VREDACT_BASE_URL: server.baseUrl,
        VREDACT_TOKEN: 'vr_test_shard_clock',
      });
      const redact = (extra: string[]) => runCli(['redact', inputs, '-o', out, '--json', ...extra], { env });

      // Night 1, as two shards, on a machine whose clock was a day ahead: the answer is broken.
      for (const shard of ['1/2', '2/2']) await redact(['--shard', shard]);
      expect(uploads(server)).toBe(1);
      await writtenADayAhead(out);

      // Night 2, the clock set right, without shards: the file is sent again and done.
      broken = false;
      const second = await redact([]);
      expect(second.exitCode).toBe(0);
      expect(jsonLines(second.stdout)[0]).toMatchObject({ status: 'done' });
      expect(uploads(server)).toBe(2);

      // Night 3: done, and skipped. The day-ahead failure outranked the done line, and the file was
      // sent again, every night until the clock caught up.
      const third = await redact([]);
      expect(third.exitCode).toBe(0);
      expect(jsonLines(third.stdout)[0]).toMatchObject({ status: 'skipped' });
      expect(uploads(server)).toBe(2);
      const status = await runCli(['status', '-o', out, '--json'], { env });
      expect(JSON.parse(String(status.stdout))).toMatchObject({ counts: { done: 1, failed: 0, total: 1 } });
    } finally {
      await server.close();
    }
  });
});
