/**
 * A first interrupt of `vredact redact` while its requests to the service wait for their turn: the
 * run sends at most max(4, -c) at once, and a poll, link or result download still waiting for its
 * turn when the interrupt comes is given up at once, never sent, its job pending for the next run.
 * Before, it waited for a turn to come free (the requests under way to finish), and only then was
 * given up. The result downloads under way finish and are saved; the next run collects the rest
 * without sending any file again. Through the built binary, against the scripted asynchronous
 * service, which holds the result downloads.
 */
import { mkdir, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { collectStderr, isolatedEnv, runCli, tempDirPerTest } from '../helpers/cli.js';
import { isWav, until } from '../helpers/e2e.js';
import { makeWav } from '../helpers/mp3.js';
import type { ScriptedServer } from '../helpers/scripted-server.js';
import { holdingResultsService, requestsOf } from '../helpers/async-job-service.js';

const REDACT = '/api/speech-to-speech-biometric-redaction';
/** `-c 4`: the run's limit of requests to the service at once, max(4, -c), and the client's window. */
const LIMIT = 4;
const FILES = 8;
const dir = tempDirPerTest('vredact-e2e-queued-requests-');
let server: ScriptedServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** The lines of the jobs the interrupt left pending. */
function pendingLines(stdout: string): string[] {
  return stdout
    .split('\n')
    .filter((line) =>
      /^pending\tin\/f\d\.wav\tnot finished: interrupted; job job-\d is collected by a later run$/.test(line),
    );
}

describe('redact: a first interrupt sends none of the requests still waiting for their turn', () => {
  it('the held result downloads finish, no other job is asked about, exit 130; the next run collects the rest', async () => {
    const service = await holdingResultsService();
    server = service.server;
    const target = service.server;
    await mkdir(join(dir.path, 'in'));
    for (let n = 1; n <= FILES; n++) await writeFile(join(dir.path, 'in', `f${n}.wav`), makeWav(7));
    const out = join(dir.path, 'out');
    const env = isolatedEnv(join(dir.path, 'config'), {
      VREDACT_BASE_URL: target.baseUrl,
      VREDACT_TOKEN: 'vr_test_queued_requests',
    });
    const run = (...extra: string[]) =>
      runCli(['redact', 'in', '-o', out, '-c', String(LIMIT), ...extra], { cwd: dir.path, env });
    // Every file sent, its job left for a later run: the next run has only jobs to collect.
    service.release();
    const sent = await run('--no-wait');
    expect(sent.exitCode, String(sent.stderr)).toBe(0);
    expect(requestsOf(target, 'POST', REDACT)).toBe(FILES);
    service.hold();

    const child = run();
    const stderr = collectStderr(child);
    let stdoutSoFar = '';
    child.stdout?.on('data', (chunk: Buffer) => (stdoutSoFar += chunk.toString('utf8')));
    const stdout = () => stdoutSoFar;
    // Every turn taken by a held result download: the other jobs' requests wait for theirs.
    await until(async () => service.heldCount() === LIMIT || child.exitCode !== null, 60_000);
    child.kill('SIGINT');
    await until(async () => /^warning: interrupted: /m.test(stderr()) || child.exitCode !== null, 30_000);
    const atInterrupt = target.received.length;
    const heldUrls = target.received.filter((r) => r.url.startsWith('/files/')).map((r) => r.url);
    // The jobs waiting for a turn are given up at once, pending while the downloads are still held
    // (before, each waited for a turn to come free, so none settled until the server let one go).
    await until(async () => pendingLines(stdout()).length === FILES - LIMIT, 30_000).catch(() => {
      throw new Error(
        `the jobs waiting for a turn were not given up while the downloads were held:\n${stdout()}`,
      );
    });
    expect(service.heldCount()).toBe(LIMIT);
    service.release();
    const result = await child;

    expect(result.exitCode, `signal ${String(result.signal)}; stderr: ${stderr()}`).toBe(130);
    // Nothing was sent after the interrupt: no poll, link or download of the jobs still waiting.
    expect(target.received.slice(atInterrupt).map((r) => `${r.method} ${r.url}`)).toEqual([]);
    expect(heldUrls).toHaveLength(LIMIT);
    const pending = pendingLines(String(result.stdout)).map((line) => line.split('\t')[1]);
    expect(pending).toHaveLength(FILES - LIMIT);
    const saved = (await readdir(out)).filter((name) => name.endsWith('.wav')).sort();
    expect(saved).toHaveLength(LIMIT);
    for (const name of saved) {
      expect(pending).not.toContain(`in/${name}`);
      expect(await isWav(join(out, name))).toBe(true);
    }

    const again = await run();
    expect(again.exitCode, String(again.stderr)).toBe(0);
    for (let n = 1; n <= FILES; n++) expect(await isWav(join(out, `f${n}.wav`))).toBe(true);
    expect(requestsOf(target, 'POST', REDACT)).toBe(FILES);
  }, 120_000);
});
