/**
 * `vredact redact` in a real terminal (tmux), collecting held asynchronous jobs: a Ctrl-C gives up
 * at once the jobs whose requests wait for their turn, and their pending lines appear while the
 * live line is on screen. Each line on a row of its own (none glued to the live line, no escape
 * sequence left), each file reported once, exit 130, and the terminal's modes as they were.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { BIN, isolatedEnv, runCli, tempDirPerTest } from '../helpers/cli.js';
import { until } from '../helpers/e2e.js';
import { makeWav } from '../helpers/mp3.js';
import type { ScriptedServer } from '../helpers/scripted-server.js';
import { holdingResultsService } from '../helpers/async-job-service.js';
import { hasTmux, startTmux, type TmuxTerminal } from '../helpers/tmux.js';

/** `-c 4`: the run's limit of requests to the service at once, max(4, -c). */
const LIMIT = 4;
const FILES = 8;
/** A row that starts with one of the spinner's frames: the live line. */
const LIVE_ROW = /^[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] /;
const dir = tempDirPerTest('vredact-e2e-redact-term-queued-');
let server: ScriptedServer | undefined;
let term: TmuxTerminal | undefined;
afterEach(async () => {
  await term?.kill();
  term = undefined;
  await server?.close();
  server = undefined;
});

describe.skipIf(!hasTmux)('redact in a terminal: Ctrl-C while requests wait for their turn', () => {
  it('the pending lines appear whole on rows of their own, the live line leaves nothing, exit 130', async () => {
    const service = await holdingResultsService();
    server = service.server;
    await mkdir(join(dir.path, 'in'));
    for (let n = 1; n <= FILES; n++) await writeFile(join(dir.path, 'in', `f${n}.wav`), makeWav(7));
    const env = isolatedEnv(join(dir.path, '.config'), {
      VREDACT_BASE_URL: service.server.baseUrl,
      VREDACT_TOKEN: 'vr_test_terminal_queued',
    });
    const sent = await runCli(['redact', 'in', '-o', 'out', '-c', String(LIMIT), '--no-wait'], {
      cwd: dir.path,
      env,
    });
    expect(sent.exitCode, String(sent.stderr)).toBe(0);
    service.hold();

    term = await startTmux(`node ${BIN} redact in -o out -c ${LIMIT}; s=$?; stty -a > stty.txt; (exit $s)`, {
      cwd: dir.path,
      env: { ...env, NO_COLOR: '1' },
      columns: 120,
    });
    await until(async () => service.heldCount() === LIMIT, 60_000);
    await term.waitFor(LIVE_ROW);
    await term.keys('C-c');
    await term.waitFor(/^warning: interrupted: /);
    // The jobs waiting for a turn are given up at once, counted while the downloads are still held.
    await term.waitFor(new RegExp(`^[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] redacting ${FILES - LIMIT}/${FILES} `));
    expect(service.heldCount()).toBe(LIMIT);
    service.release();

    expect(await term.exited()).toBe(130);
    const rows = await term.rows();
    const screen = rows.join('\n');
    expect(
      rows.filter((row) => LIVE_ROW.test(row)),
      screen,
    ).toEqual([]);
    // No escape sequence (or its remains) on screen, and no line glued to another.
    expect(screen).not.toMatch(/\x1b|\[\d*[A-Za-z]|\[\?25/);
    // The counts, then each file given up listed once on a row of its own.
    expect(screen).toMatch(new RegExp(`^. redacted ${LIMIT} · .*pending ${FILES - LIMIT}\\b`, 'm'));
    const fileRows = rows.filter((row) => /in\/f\d\.wav/.test(row));
    expect(fileRows, screen).toHaveLength(FILES - LIMIT);
    for (const row of fileRows)
      expect(row, screen).toMatch(/^pending\s+in\/f\d\.wav\s+not finished: interrupted/);
    expect(new Set(fileRows.map((row) => row.split(/\s+/)[1])).size).toBe(FILES - LIMIT);
    const stty = await readFile(join(dir.path, 'stty.txt'), 'utf8');
    for (const mode of ['echo', 'icanon', 'isig']) expect(stty).toMatch(new RegExp(`(^|\\s)${mode}(\\s|$)`));
  }, 120_000);
});
