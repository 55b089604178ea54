/**
 * A batch stopped by a failure that ends the run (a refused token, uploads answered by something that
 * is not the service) decides no more inputs: those not decided by then have no line, on stdout or in
 * the journal, and are counted `undecided` in the summary, as after an interrupt. Before, the run went
 * on deciding every input left (a stat and a journal look-up each) only to report it `pending … (not
 * sent)`. Over more inputs than the queues between the stages hold, so that some are left undecided.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isolatedEnv, runCli, tempDirPerTest } from '../helpers/cli.js';
import { jsonLines } from '../helpers/e2e.js';
import { layoutWav } from '../helpers/result-wav.js';
import { sendJson, startScriptedServer } from '../helpers/scripted-server.js';

const dir = tempDirPerTest('vredact-e2e-stop-decides-');
const INPUTS = 1200;

async function inputs(): Promise<void> {
  const wav = layoutWav({ sampleRate: 16_000, channels: 1, bits: 16 }, 0.5, 3);
  await mkdir(join(dir.path, 'in'));
  for (let i = 0; i < INPUTS; i++)
    await writeFile(join(dir.path, 'in', `f${String(i).padStart(4, '0')}.wav`), wav);
}

async function journaledInputs(): Promise<Set<string>> {
  const text = await readFile(join(dir.path, 'out', '.vredact', 'journal.jsonl'), 'utf8').catch(() => '');
  return new Set(
    text
      .split('\n')
      .filter(Boolean)
      .map((line) => (JSON.parse(line) as { input: string }).input.replace(/^.*\/in\//, 'in/')),
  );
}

describe('a batch stopped by a failure', () => {
  it.each([
    ['a refused token', 3, 401],
    ['uploads answered by something that is not the service', 1, 200],
  ])('decides no more inputs after it: %s', async (_, exitCode, status) => {
    await inputs();
    const server = await startScriptedServer((req, res) => {
      if (status === 401) return sendJson(res, 401, { error: 'unauthorized', message: 'bad token' });
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end('<html>portal</html>');
    });
    try {
      const env = isolatedEnv(join(dir.path, '.config'), {
        VREDACT_BASE_URL: server.baseUrl,
        VREDACT_TOKEN: 'vr_test_stop_decides_0123456789',
      });
      const run = await runCli(['redact', 'in', '-o', 'out', '--json', '-c', '2'], { env, cwd: dir.path });
      expect(run.exitCode).toBe(exitCode);
      const lines = jsonLines(run.stdout);
      const summary = lines.at(-1)?.summary as { undecided: number; failed: number; pending: number };
      const outcomes = lines.filter((line) => typeof line.input === 'string');
      // Only the inputs decided before the stop (the few sent, those queued) have a line.
      expect(summary.undecided).toBeGreaterThan(INPUTS / 3);
      expect(outcomes).toHaveLength(INPUTS - summary.undecided);
      expect(summary.failed + summary.pending).toBe(outcomes.length);
      expect(lines.at(-1)).not.toHaveProperty('interrupted');
      expect(outcomes.filter((line) => line.status === 'pending').map((line) => line.reason)).toEqual(
        Array(summary.pending).fill(expect.stringMatching(/^not finished: /)),
      );
      // No journal line for an input that was not decided.
      const decided = new Set(outcomes.map((line) => line.input));
      for (const input of await journaledInputs()) expect(decided).toContain(input);
      expect(server.received.length).toBeLessThanOrEqual(4);
    } finally {
      await server.close();
    }
  });

  it('says on its counts line why inputs were left undecided', async () => {
    await inputs();
    const server = await startScriptedServer((_req, res) =>
      sendJson(res, 401, { error: 'unauthorized', message: 'bad token' }),
    );
    try {
      const env = isolatedEnv(join(dir.path, '.config'), {
        VREDACT_BASE_URL: server.baseUrl,
        VREDACT_TOKEN: 'vr_test_stop_decides_0123456789',
      });
      const run = await runCli(['redact', 'in', '-o', 'out', '-c', '2'], { env, cwd: dir.path });
      expect(run.exitCode).toBe(3);
      expect(String(run.stderr)).toMatch(
        /^redacted 0, skipped 0 \(already done\), rejected 0, failed 1, pending \d+, undecided \d+ \(the batch stopped\)$/m,
      );
    } finally {
      await server.close();
    }
  });
});
