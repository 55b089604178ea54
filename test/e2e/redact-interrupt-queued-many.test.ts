/**
 * A first interrupt of `vredact redact -c 64` collecting 2,000 held asynchronous jobs: the requests
 * waiting for their turn (nearly all) are given up at once. Under --json each job given up has one
 * object, pending, and the summary counts them; no warning of the runtime on stderr (thousands of
 * waiters on the run's stop signal are not a leak); exit 130.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { collectStderr, isolatedEnv, runCli, tempDirPerTest } from '../helpers/cli.js';
import { until } from '../helpers/e2e.js';
import { makeWav } from '../helpers/mp3.js';
import type { ScriptedServer } from '../helpers/scripted-server.js';
import { holdingResultsService } from '../helpers/async-job-service.js';

const LIMIT = 64;
const FILES = 2_000;
const dir = tempDirPerTest('vredact-e2e-queued-many-');
let server: ScriptedServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe('redact -c 64: a first interrupt with 2,000 jobs waiting for their turn', () => {
  it('each job given up is reported once, pending, the summary counts them, no warning, exit 130', async () => {
    const service = await holdingResultsService();
    const started = service.server;
    server = started;
    await mkdir(join(dir.path, 'in'));
    const wav = makeWav(7);
    for (let n = 1; n <= FILES; n++) await writeFile(join(dir.path, 'in', `f${n}.wav`), wav);
    const env = isolatedEnv(join(dir.path, 'config'), {
      VREDACT_BASE_URL: started.baseUrl,
      VREDACT_TOKEN: 'vr_test_queued_many',
    });
    const run = (...extra: string[]) =>
      runCli(['redact', 'in', '-o', 'out', '-c', String(LIMIT), ...extra], { cwd: dir.path, env });
    const sent = await run('--no-wait');
    expect(sent.exitCode, String(sent.stderr)).toBe(0);
    service.hold();

    const child = run('--json');
    const stderr = collectStderr(child);
    await until(async () => service.heldCount() === LIMIT || child.exitCode !== null, 120_000);
    child.kill('SIGINT');
    await until(async () => /^warning: interrupted: /m.test(stderr()) || child.exitCode !== null, 30_000);
    service.release();
    const result = await child;

    expect(result.exitCode, stderr()).toBe(130);
    expect(stderr()).not.toMatch(/MaxListeners|\(node:\d+\)|memory leak/);
    const objects = String(result.stdout)
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    const summary = objects.find((object) => 'summary' in object) as
      { summary: Record<string, number>; interrupted?: boolean } | undefined;
    const files = objects.filter((object) => 'input' in object);
    const pending = files.filter((object) => object['status'] === 'pending').map((object) => object['input']);
    expect(new Set(files.map((object) => object['input'])).size).toBe(files.length);
    expect(files).toHaveLength(FILES);
    expect(pending.length).toBeGreaterThanOrEqual(FILES - LIMIT);
    expect(summary?.interrupted).toBe(true);
    expect(summary?.summary['pending']).toBe(pending.length);
    expect(summary?.summary['done']).toBe(FILES - pending.length);
  }, 300_000);
});
