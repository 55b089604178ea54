/**
 * `vredact download` in a real terminal (tmux): Ctrl-C from the keyboard, and a hangup of the
 * terminal, each a first interrupt: the files in flight finish whole, no other starts, exit 130,
 * and nothing half-written or temporary is left; the live line leaves nothing behind on screen.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { BIN, isolatedEnv, tempDirPerTest } from '../helpers/cli.js';
import { until } from '../helpers/e2e.js';
import { type HoldingFileHost, savedFiles, startHoldingFileHost } from '../helpers/holding-file-host.js';
import { hasTmux, startTmux, type TmuxTerminal } from '../helpers/tmux.js';

const FILES = 6;
/** A row that starts with one of the spinner's frames: the live line. */
const LIVE_ROW = /^[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] /;
const dir = tempDirPerTest('vredact-e2e-download-term-');

let host: HoldingFileHost | undefined;
let term: TmuxTerminal | undefined;
afterEach(async () => {
  await term?.kill();
  term = undefined;
  await host?.close();
  host = undefined;
});

function envFor(baseUrl: string): NodeJS.ProcessEnv {
  return isolatedEnv(join(dir.path, '.config'), {
    VREDACT_BASE_URL: baseUrl,
    VREDACT_TOKEN: 'vr_test_terminal_interrupt',
  });
}

describe.skipIf(!hasTmux)('download in a terminal', () => {
  it('Ctrl-C lets the files in flight finish whole, starts no other, and exits 130', async () => {
    host = await startHoldingFileHost(FILES);
    term = await startTmux(`node ${BIN} download job1 -c 2 -o out`, {
      cwd: dir.path,
      env: envFor(host.baseUrl),
      columns: 160,
    });
    await until(async () => host!.gets() === 2, 30_000);
    await term.keys('C-c');
    // One wording with redact's (src/interrupt.ts): what it does now and what the next Ctrl-C would do.
    await term.waitFor(
      /warning: interrupted: finishing the 2 downloads in flight, then exiting; press Ctrl-C again to stop them now/,
    );
    host.release();

    expect(await term.exited()).toBe(130);
    expect(host.gets()).toBe(2);
    const out = join(dir.path, 'out');
    expect(await savedFiles(out, host)).toEqual({ names: ['f0.wav', 'f1.wav'], whole: true });
  }, 60_000);

  it('Ctrl-C at a live line as wide as the terminal leaves no copy of it on screen, and the terminal as it was', async () => {
    host = await startHoldingFileHost(FILES);
    // At 12 columns the line is wider than the terminal: its last row ends at the last column,
    // where the `^C` the terminal echoes starts a new row.
    term = await startTmux(`node ${BIN} download job1 -c 2 -o out; s=$?; stty -a > stty.txt; (exit $s)`, {
      cwd: dir.path,
      env: { ...envFor(host.baseUrl), NO_COLOR: '1' },
      columns: 12,
    });
    await until(async () => host!.gets() === 2, 30_000);
    await term.waitFor(LIVE_ROW);
    await term.keys('C-c');
    await term.waitFor(/^warning: int/);
    host.release();

    expect(await term.exited()).toBe(130);
    const rows = await term.rows();
    // The line's first row, `⠋ Downloadin`, stayed above the warning for good.
    expect(rows.filter((row) => LIVE_ROW.test(row))).toEqual([]);
    expect(await savedFiles(join(dir.path, 'out'), host)).toEqual({
      names: ['f0.wav', 'f1.wav'],
      whole: true,
    });
    const stty = await readFile(join(dir.path, 'stty.txt'), 'utf8');
    for (const mode of ['echo', 'icanon', 'isig']) expect(stty).toMatch(new RegExp(`(^|\\s)${mode}(\\s|$)`));
  }, 60_000);

  it('a hangup lets the files in flight finish whole, starts no other, and exits 130', async () => {
    host = await startHoldingFileHost(FILES);
    // A terminal's shell leads its session: when the terminal goes, the system sends it SIGHUP, and
    // it sends SIGHUP on to its jobs. The bash around vredact outlives the hangup (a trap is no
    // ignore: vredact starts with SIGHUP's default) to write its exit status.
    term = await startTmux(`PS1='$ ' exec bash --norc --noprofile -i`, {
      cwd: dir.path,
      env: envFor(host.baseUrl),
    });
    await term.waitFor(/^\$/);
    await term.keys(
      `bash -c 'trap : HUP; node ${BIN} download job1 -c 2 -o out 2>stderr.log; echo $? > status'`,
      'Enter',
    );
    await until(async () => host!.gets() === 2, 30_000);
    await term.kill();
    const log = join(dir.path, 'stderr.log');
    const status = join(dir.path, 'status');
    const readStatus = () => readFile(status, 'utf8').catch(() => '');
    await until(
      async () =>
        /^\d+\n$/.test(await readStatus()) ||
        (await readFile(log, 'utf8').catch(() => '')).includes('hangup'),
      30_000,
    );
    host.release();
    await until(async () => /^\d+\n$/.test(await readStatus()), 30_000);

    expect(Number(await readStatus()), await readFile(log, 'utf8')).toBe(130);
    expect(host.gets()).toBe(2);
    const out = join(dir.path, 'out');
    expect(await savedFiles(out, host)).toEqual({ names: ['f0.wav', 'f1.wav'], whole: true });
    expect(await readFile(log, 'utf8')).toMatch(
      /^warning: hangup: finishing the 2 downloads in flight, then exiting$/m,
    );
  }, 60_000);
});
