/**
 * A batch that stops (a wrong service: uploads answered by something that is not the service) while
 * a first interrupt is being honoured exits 1, as its `error: the batch stopped: …` line says, not
 * 130: the stop is what the next run must see to. Through the built binary, against a server that
 * holds the uploads in flight and answers them, after the interrupt, as a web server's 404 page.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import type { ServerResponse } from 'node:http';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { collectStderr, isolatedEnv, runCli, tempDirPerTest } from '../helpers/cli.js';
import { until } from '../helpers/e2e.js';
import { makeWav } from '../helpers/mp3.js';
import { type ScriptedServer, startScriptedServer } from '../helpers/scripted-server.js';

const REDACT = '/api/speech-to-speech-biometric-redaction';
/** The uploads in flight at once (-c), as many as the answers in a row that stop the batch. */
const IN_FLIGHT = 3;
const FILES = 5;
const dir = tempDirPerTest('vredact-e2e-halt-interrupted-');
let server: ScriptedServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe('redact: a batch stopped while an interrupt is honoured', () => {
  it('exits 1 with the stop said, the files not sent pending, nothing sent after the interrupt', async () => {
    const held: ServerResponse[] = [];
    server = await startScriptedServer((req, res) => {
      if (req.method === 'POST' && req.url === REDACT) {
        held.push(res);
        return;
      }
      res.writeHead(404, { 'content-type': 'text/html' });
      res.end('<html><body>Not Found</body></html>');
    });
    await mkdir(join(dir.path, 'in'));
    for (let n = 1; n <= FILES; n++) await writeFile(join(dir.path, 'in', `f${n}.wav`), makeWav(7));
    const env = isolatedEnv(join(dir.path, 'config'), {
      VREDACT_BASE_URL: server.baseUrl,
      VREDACT_TOKEN: 'vr_test_halt_interrupted',
    });
    const child = runCli(['redact', 'in', '-o', 'out', '-c', String(IN_FLIGHT)], { cwd: dir.path, env });
    const stderr = collectStderr(child);
    await until(async () => held.length === IN_FLIGHT || child.exitCode !== null, 60_000);
    child.kill('SIGINT');
    await until(async () => /^warning: interrupted: /m.test(stderr()) || child.exitCode !== null, 30_000);
    for (const res of held.splice(0)) {
      res.writeHead(404, { 'content-type': 'text/html' });
      res.end('<html><body>Not Found</body></html>');
    }
    const result = await child;

    expect(result.exitCode, stderr()).toBe(1);
    expect(stderr()).toMatch(/^error: the batch stopped: /m);
    const uploads = server.received.filter((r) => r.method === 'POST' && r.url === REDACT);
    expect(uploads).toHaveLength(IN_FLIGHT);
    const lines = String(result.stdout).split('\n').filter(Boolean);
    expect(lines.filter((line) => /^pending\tin\/f\d\.wav\t.*\(not sent\)$/.test(line))).toHaveLength(
      FILES - IN_FLIGHT,
    );
    expect(lines.filter((line) => /^failed\tin\/f\d\.wav\t/.test(line))).toHaveLength(IN_FLIGHT);
    expect(lines.filter((line) => /\tin\/f\d\.wav\t/.test(line))).toHaveLength(FILES);
    expect(stderr()).toMatch(/, failed 3, pending 2$/m);
  }, 120_000);
});
