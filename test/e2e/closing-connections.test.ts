/**
 * Servers that close keep-alive connections under a batch, end to end against the built binary: an
 * idle timeout shorter than undici's own (ended with a FIN or a reset, with or without a `Keep-Alive`
 * header saying so) and a cap on answers per connection (with or without `Connection: close` on the
 * last). The server's 429s every few uploads hold the client's gate about a second, so its
 * connections sit idle about as long as the server's idle timeout, and the server's closes reach the
 * client 20 ms late, as across a network. Every file must end done, each uploaded exactly once.
 * A server that closes after an answer without `Connection: close` can race the next upload, which
 * no client can see coming: there, nothing may be lost or taken twice.
 */
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { isolatedEnv, runCli, tempDirPerTest } from '../helpers/cli.js';
import { type ClosingServerOptions, startClosingServer } from '../helpers/closing-server.js';
import { isWav, jsonLines } from '../helpers/e2e.js';
import { speechInputs } from '../helpers/speech-files.js';

const FILES = 40;
const dir = tempDirPerTest('vredact-closing-');

const inputNames = (): string[] => Array.from({ length: FILES }, (_, i) => `call-${i}.wav`).sort();

async function redactAll(
  baseUrl: string,
): Promise<{ exitCode: number | undefined; stderr: string; summary: unknown; out: string }> {
  const inputs = await speechInputs(dir.path, FILES);
  const out = join(dir.path, 'out');
  const env = isolatedEnv(join(dir.path, '.config'), {
    VREDACT_BASE_URL: baseUrl,
    VREDACT_TOKEN: 'vr_closing_0123456789abcdef',
  });
  const result = await runCli(['redact', inputs, '-o', out, '-c', '8', '--json'], { env });
  const summary = jsonLines(result.stdout).at(-1)?.summary;
  return { exitCode: result.exitCode, stderr: String(result.stderr), summary, out };
}

const IDLE_PAUSES = { idleCloseMs: 1000, closeLatencyMs: 20, throttleEvery: 8 } as const;

const CASES: Array<[string, ClosingServerOptions]> = [
  ['idle connections closed after 1 s, with a FIN, saying nothing', { ...IDLE_PAUSES }],
  ['idle connections reset after 1 s, saying nothing', { ...IDLE_PAUSES, idleCloseWith: 'rst' }],
  ['idle connections closed after 1 s, with Keep-Alive: timeout=1', { ...IDLE_PAUSES, advertiseIdle: true }],
  [
    'connections closed after 5 answers, the last with Connection: close',
    { requestsPerConnection: 5, announceLast: true },
  ],
];

/** The result files of the run, each checked to be a WAV. */
async function wavOutputs(out: string): Promise<string[]> {
  const outputs = (await readdir(out)).filter((name) => name.endsWith('.wav')).sort();
  for (const name of outputs) expect(await isWav(join(out, name))).toBe(true);
  return outputs;
}

describe('a server that closes keep-alive connections', () => {
  test.each(CASES)('%s: every file done, each uploaded once', async (_name, options) => {
    const server = await startClosingServer(options);
    try {
      const run = await redactAll(server.baseUrl);

      expect(run.exitCode, run.stderr).toBe(0);
      expect(run.summary).toEqual({ done: FILES, skipped: 0, rejected: 0, failed: 0, pending: 0 });
      expect([...server.answered.keys()].sort()).toEqual(inputNames());
      expect([...server.answered.values()].every((times) => times === 1)).toBe(true);
      expect(server.metByClose).toBe(0);
      expect(await wavOutputs(run.out)).toEqual(inputNames());
    } finally {
      await server.close();
    }
  });

  test('connections closed after 5 answers, saying nothing: no file lost, none uploaded twice', async () => {
    const server = await startClosingServer({ requestsPerConnection: 5 });
    try {
      const run = await redactAll(server.baseUrl);

      const { done, failed, pending } = run.summary as Record<string, number>;
      expect([done, failed, pending].every(Number.isInteger)).toBe(true);
      expect(done! + failed! + pending!).toBe(FILES);
      expect([...server.answered.values()].every((times) => times === 1)).toBe(true);
      const outputs = await wavOutputs(run.out);
      expect(outputs.length).toBe(done);
      for (const name of outputs) expect(server.answered.get(name)).toBe(1);
    } finally {
      await server.close();
    }
  });
});
