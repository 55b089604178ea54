/**
 * A service over TLS whose certificate this machine does not trust, end to end: the built binary
 * against the sandbox behind a TLS front for `service.test`, reached through a CONNECT proxy (the
 * host name needs no DNS that way). Build first: `npm run build`.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { isWav } from '../helpers/e2e.js';
import { makeWav } from '../helpers/mp3.js';
import { tlsServicePerTest } from '../helpers/tls-service.js';

const service = tlsServicePerTest('vredact-tls-');

/** A run through the proxy; the test certificate authority trusted only when `trusted`. */
function redact(trusted: boolean) {
  const env = service.env({ HTTPS_PROXY: service.proxy.url }, trusted);
  return runCli(['redact', 'in', '-o', 'out', '-c', '1'], { env, cwd: service.dir });
}

it('stops the batch at the first upload when the service certificate is not trusted, and finishes it once it is', async () => {
  await mkdir(join(service.dir, 'in'));
  for (const name of ['a', 'b', 'c', 'd', 'e']) {
    await writeFile(join(service.dir, 'in', `${name}.wav`), makeWav(1, 16000));
  }
  const untrusted = await redact(false);
  expect(untrusted.exitCode).toBe(1);
  const stderr = String(untrusted.stderr);
  const stopped = `the TLS certificate of service.test:${service.front.port} is not trusted (issued by an authority this machine does not trust)`;
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
  expect((await service.sandbox.stats()).uploads).toBe(0);

  const trusted = await redact(true);
  expect(trusted.exitCode, String(trusted.stderr)).toBe(0);
  for (const name of ['a', 'b', 'c', 'd', 'e'])
    expect(await isWav(join(service.dir, 'out', `${name}.wav`))).toBe(true);
  expect((await service.sandbox.stats()).uploads).toBe(5);
  const journal = await readFile(join(service.dir, 'out', '.vredact', 'journal.jsonl'), 'utf8');
  expect(journal.split('\n').filter((line) => line.includes('"event":"done"'))).toHaveLength(5);
});
