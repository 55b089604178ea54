/**
 * A service over TLS whose certificate this machine does not trust, end to end: the built binary
 * against the sandbox behind a TLS front for `service.test`, reached through a CONNECT proxy (the
 * host name needs no DNS that way). Build first: `npm run build`.
 */
import { readFile, writeFile, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { isolatedEnv, runCli, tempDir } from '../helpers/cli.js';
import {
  type ConnectProxy,
  startConnectProxy,
  startTlsFront,
  TEST_CA,
  type TlsFront,
} from '../helpers/connect-proxy.js';
import { isWav } from '../helpers/e2e.js';
import { makeWav } from '../helpers/mp3.js';
import { type SandboxProcess, startSandboxProcess } from '../helpers/sandbox.js';

let sandbox: SandboxProcess;
let front: TlsFront;
let proxy: ConnectProxy;
let temp: Awaited<ReturnType<typeof tempDir>>;

beforeEach(async () => {
  temp = await tempDir('vredact-tls-');
  sandbox = await startSandboxProcess();
  front = await startTlsFront(Number(new URL(sandbox.baseUrl).port));
  proxy = await startConnectProxy(['service.test']);
});

afterEach(async () => {
  await proxy.close();
  await front.close();
  await sandbox.stop();
  await temp.cleanup();
});

function redact(extra: Record<string, string>) {
  const env = isolatedEnv(join(temp.path, 'cfg'), {
    VREDACT_BASE_URL: `https://service.test:${front.port}`,
    VREDACT_TOKEN: sandbox.token,
    HTTPS_PROXY: proxy.url,
    ...extra,
  });
  return runCli(['redact', 'in', '-o', 'out', '-c', '1'], { env, cwd: temp.path });
}

it('stops the batch at the first upload when the service certificate is not trusted, and finishes it once it is', async () => {
  await mkdir(join(temp.path, 'in'));
  for (const name of ['a', 'b', 'c', 'd', 'e']) {
    await writeFile(join(temp.path, 'in', `${name}.wav`), makeWav(1, 16000));
  }
  const untrusted = await redact({});
  expect(untrusted.exitCode).toBe(1);
  const stderr = String(untrusted.stderr);
  const stopped = `the TLS certificate of service.test:${front.port} is not trusted (issued by an authority this machine does not trust)`;
  expect(stderr).toMatch(/the batch stopped: redacting [a-e]\.wav: /);
  expect(stderr).toContain(stopped);
  expect(stderr).toContain('NODE_EXTRA_CA_CERTS');
  // One file failed for it; the rest were never sent, and say why.
  const lines = String(untrusted.stdout).split('\n').filter(Boolean);
  expect(lines.filter((line) => line.startsWith('failed\t'))).toHaveLength(1);
  expect(lines.filter((line) => line.startsWith('pending\t'))).toHaveLength(4);
  expect(
    lines
      .filter((line) => line.startsWith('pending\t'))
      .every((line) => line.includes('failure every upload would meet')),
  ).toBe(true);
  expect((await sandbox.stats()).uploads).toBe(0);

  const trusted = await redact({ NODE_EXTRA_CA_CERTS: TEST_CA });
  expect(trusted.exitCode, String(trusted.stderr)).toBe(0);
  for (const name of ['a', 'b', 'c', 'd', 'e'])
    expect(await isWav(join(temp.path, 'out', `${name}.wav`))).toBe(true);
  expect((await sandbox.stats()).uploads).toBe(5);
  const journal = await readFile(join(temp.path, 'out', '.vredact', 'journal.jsonl'), 'utf8');
  expect(journal.split('\n').filter((line) => line.includes('"event":"done"'))).toHaveLength(5);
});
