/**
 * An answer before the upload is fully sent, on each way vredact reaches the service: https direct
 * (the connection a TLSSocket), and through a CONNECT tunnel for an http and an https service (the
 * tunnel's socket, and TLS inside it). early-answers.test.ts covers plain http direct. Through the
 * test proxy the reset seldom meets a write in flight (the proxy stops reading the upload while the
 * service does not read it), so those cases show the answer comes through the tunnel; that the
 * tunnelled socket holds a write failure is test/api/early-answer-wiring.test.ts's.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { pcm16MonoHeader } from '../../src/audio/wav-encode.js';
import { ExitCode } from '../../src/errors.js';
import { isolatedEnv, runCli, tempDirPerTest } from '../helpers/cli.js';
import { type ConnectProxy, startConnectProxy, TEST_CA } from '../helpers/connect-proxy.js';
import { jsonLines } from '../helpers/e2e.js';
import { type EarlyAnswerOptions, startEarlyAnswerServer } from '../helpers/early-answer-server.js';
import { HOSTS_PRELOAD } from '../helpers/hosts-preload.js';
import { latestEvents } from '../helpers/journal.js';

const FILES = 3;
/** 60 s of 16 kHz 16-bit mono: 1.8 MiB, past nginx's default 1 MB limit. */
const SAMPLES = 60 * 16_000;

const dir = tempDirPerTest('vredact-early-paths-');
let proxy: ConnectProxy | undefined;
afterEach(async () => {
  await proxy?.close();
  proxy = undefined;
});

type Path = 'https direct' | 'http through HTTP_PROXY' | 'https through HTTPS_PROXY';
const PATHS: Path[] = ['https direct', 'http through HTTP_PROXY', 'https through HTTPS_PROXY'];
const CLOSES: Array<[string, EarlyAnswerOptions['closeWith']]> = [
  ['a reset', 'rst'],
  ['a FIN', 'fin'],
];
const CASES = PATHS.flatMap((path) => CLOSES.map(([name, close]) => [path, name, close] as const));

async function largeInputs(): Promise<string> {
  const folder = join(dir.path, 'in');
  await mkdir(folder, { recursive: true });
  const wav = Buffer.concat([pcm16MonoHeader(SAMPLES, 16_000), Buffer.alloc(SAMPLES * 2)]);
  for (let i = 0; i < FILES; i++) await writeFile(join(folder, `call-${i}.wav`), wav);
  return folder;
}

/** The environment of a run to `port` by `path`: the proxy started, `service.test` made to resolve. */
async function envFor(path: Path, port: number): Promise<NodeJS.ProcessEnv> {
  const tls = path.startsWith('https');
  const base = `${tls ? 'https' : 'http'}://service.test:${port}`;
  const extra: Record<string, string> = {
    VREDACT_BASE_URL: base,
    VREDACT_TOKEN: 'vr_early_0123456789abcdef',
  };
  if (tls) extra.NODE_EXTRA_CA_CERTS = TEST_CA;
  if (path === 'https direct') {
    const preload = join(dir.path, 'hosts.cjs');
    await writeFile(preload, HOSTS_PRELOAD);
    extra.NODE_OPTIONS = `--require ${preload}`;
  } else {
    proxy = await startConnectProxy(['service.test']);
    extra[tls ? 'HTTPS_PROXY' : 'HTTP_PROXY'] = proxy.url;
  }
  return isolatedEnv(join(dir.path, '.config'), extra);
}

describe('an answer before the upload is fully sent, on every way to the service', () => {
  test.each(CASES)("%s, a proxy's 413 then %s: each file fails with the 413", async (path, _name, close) => {
    const server = await startEarlyAnswerServer({
      closeWith: close,
      tls: path.startsWith('https'),
      answer: () => ({ status: 413, body: '<html>413 Request Entity Too Large</html>' }),
    });
    try {
      const inputs = await largeInputs();
      const out = join(dir.path, 'out');
      const env = await envFor(path, server.port);
      const args = ['redact', inputs, '-o', out, '-c', '3', '--json'];
      if (path.startsWith('http ')) args.push('--allow-insecure-http');
      const run = await runCli(args, { env, timeout: 120_000 });
      const stderr = String(run.stderr);
      const lines = jsonLines(run.stdout);

      expect(run.exitCode, stderr).toBe(ExitCode.partial);
      const reasons = lines.filter((line) => line.status === 'failed').map((line) => String(line.reason));
      expect(reasons, stderr).toHaveLength(FILES);
      for (const reason of reasons) {
        expect(reason, stderr).toMatch(/: the service answered 413 Payload Too Large; /);
        expect(reason).not.toMatch(/EPIPE|ECONNRESET|may have taken it/);
      }
      expect(stderr).not.toMatch(/EPIPE|ECONNRESET|may have taken it/);
      // Refused, so not `uploading`: the next run sends them again with no look-up first.
      expect(Object.values(await latestEvents(out))).toEqual(Array(FILES).fill('failed'));
      expect(server.early.size).toBe(FILES);
      if (proxy) {
        // Every connection went through the tunnel, none as a forward-proxy request.
        expect(new Set(proxy.connects.map((c) => c.target))).toEqual(
          new Set([`service.test:${server.port}`]),
        );
        expect(proxy.plainRequests).toEqual([]);
      }
    } finally {
      await server.close();
    }
  });
});
