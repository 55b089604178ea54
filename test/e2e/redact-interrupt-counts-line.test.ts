/**
 * A run of `vredact redact` without --json interrupted before it decides any input (as it plans, as
 * it reads the journals), through the built binary: it still ends with its counts line on stderr, as
 * a run interrupted later in the batch does, so that a cron log of `--quiet --stats` shows how it
 * ended. Before, such a run printed no counts line (only `--json` got its summary object).
 * The run is held at the start of the phase by the test-only knob VREDACT_TEST_PAUSE.
 */
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { collectStderr, isolatedEnv, runCli, tempDirPerTest } from '../helpers/cli.js';
import { until } from '../helpers/e2e.js';
import { writeJournal } from '../helpers/journal.js';
import { sendJson, startScriptedServer, type ScriptedServer } from '../helpers/scripted-server.js';
import { speechInputs } from '../helpers/speech-files.js';

const dir = tempDirPerTest('vredact-e2e-interrupt-counts-');

let server: ScriptedServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** Runs `redact in -o out` with `extra`, held at `point`; interrupts it once `held` says so. */
async function interruptedAt(point: string, extra: string[], held: (stderr: string) => boolean) {
  server = await startScriptedServer((_req, res) => sendJson(res, 500, { error: 500, message: 'no' }));
  await speechInputs(dir.path, 3);
  await writeJournal(join(dir.path, 'out'), []);
  const child = runCli(['redact', 'in', '-o', 'out', ...extra], {
    env: isolatedEnv(join(dir.path, 'config'), {
      VREDACT_BASE_URL: server.baseUrl,
      VREDACT_TOKEN: 'vr_test_counts_line',
      VREDACT_TEST_PAUSE: point,
    }),
    cwd: dir.path,
  });
  const stderr = collectStderr(child);
  await until(async () => held(stderr()) || child.exitCode !== null, 60_000);
  child.kill('SIGINT');
  const result = await child;
  return { result, lines: String(result.stderr).trimEnd().split('\n') };
}

const RERUN = /^error: interrupted: run the same command again/;

describe('a run interrupted before it decides any input ends with its counts line', () => {
  it('as it plans: the counts line says it was interrupted before any input was decided; exit 130', async () => {
    const { result, lines } = await interruptedAt('plan', [], (text) => text.includes('paused at the plan'));
    expect(result.exitCode, String(result.stderr)).toBe(130);
    expect(lines.at(-2)).toBe(
      'redacted 0, skipped 0 (already done), rejected 0, failed 0, pending 0 (interrupted before any input was decided)',
    );
    expect(lines.at(-1)).toMatch(RERUN);
    expect(result.stdout).toBe('');
    expect(server?.received).toEqual([]);
  }, 90_000);

  it('--quiet --stats, as it reads the journals: the counts line, the inputs planned undecided; exit 130', async () => {
    const { result, lines } = await interruptedAt('journal', ['--quiet', '--stats', '1s'], (text) =>
      /^reading the journals · /m.test(text),
    );
    expect(result.exitCode, String(result.stderr)).toBe(130);
    expect(lines.at(-2)).toBe(
      'redacted 0, skipped 0 (already done), rejected 0, failed 0, pending 0, undecided 3 (interrupted)',
    );
    expect(lines.at(-1)).toMatch(RERUN);
    expect(server?.received).toEqual([]);
  }, 90_000);
});
