/**
 * Servers that close keep-alive connections under a batch, end to end against the built binary: an
 * idle timeout shorter than undici's own (ended with a FIN or a reset, with or without a `Keep-Alive`
 * header saying so) and a cap on answers per connection (with or without `Connection: close` on the
 * last). The server's 429s every few uploads hold the client's gate about a second, so its
 * connections sit idle about as long as the server's idle timeout, and the server's closes reach the
 * client 20 ms late, as across a network. Every file must end done, each uploaded exactly once.
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

const IDLE_PAUSES = { idleCloseMs: 1000, closeLatencyMs: 20, throttleEvery: 8 } as const;

const CASES: Array<[string, ClosingServerOptions]> = [
  ['idle connections closed after 1 s, with a FIN, saying nothing', { ...IDLE_PAUSES }],
  ['idle connections reset after 1 s, saying nothing', { ...IDLE_PAUSES, idleCloseWith: 'rst' }],
  ['idle connections closed after 1 s, with Keep-Alive: timeout=1', { ...IDLE_PAUSES, advertiseIdle: true }],
  ['connections closed after 5 answers, saying nothing', { requestsPerConnection: 5 }],
  [
    'connections closed after 5 answers, the last with Connection: close',
    { requestsPerConnection: 5, announceLast: true },
  ],
];

describe('a server that closes keep-alive connections', () => {
  test.each(CASES)('%s: every file done, each uploaded once', async (_name, options) => {
    const server = await startClosingServer(options);
    try {
      const inputs = await speechInputs(dir.path, FILES);
      const out = join(dir.path, 'out');
      const env = isolatedEnv(join(dir.path, '.config'), {
        VREDACT_BASE_URL: server.baseUrl,
        VREDACT_TOKEN: 'vr_closing_0123456789abcdef',
      });
      const result = await runCli(['redact', inputs, '-o', out, '-c', '8', '--json'], { env });

      expect(result.exitCode, String(result.stderr)).toBe(0);
      const summary = jsonLines(result.stdout).at(-1)?.summary;
      expect(summary).toEqual({ done: FILES, skipped: 0, rejected: 0, failed: 0, pending: 0 });
      const names = Array.from({ length: FILES }, (_, i) => `call-${i}.wav`).sort();
      expect([...server.answered.keys()].sort()).toEqual(names);
      expect([...server.answered.values()].every((times) => times === 1)).toBe(true);
      expect(server.metByClose).toBe(0);
      const outputs = (await readdir(out)).filter((name) => name.endsWith('.wav')).sort();
      expect(outputs).toEqual(names);
      for (const name of outputs) expect(await isWav(join(out, name))).toBe(true);
    } finally {
      await server.close();
    }
  });
});
