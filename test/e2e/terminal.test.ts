/**
 * A person at a terminal, through a real pseudo-terminal running the built binary against the
 * sandbox: Ctrl-C from the keyboard (a batch, the login prompt), the live line, the end summary,
 * hostile and wide file names, tables, a terminal that cannot redraw, and `| cat`.
 */
import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterEach, describe, expect, it } from 'vitest';
import { columnsOf } from '../../src/output/fit.js';
import { BIN, runCli } from '../helpers/cli.js';
import { startScriptedServer } from '../helpers/scripted-server.js';
import { type Pty, runInPty, screenLines } from '../helpers/pty.js';
import { type E2E, pauseBeforeAnotherSignal, setup } from '../helpers/e2e.js';

let e2e: E2E | undefined;
let term: Pty | undefined;
afterEach(async () => {
  term?.kill();
  term = undefined;
  await e2e?.cleanup();
  e2e = undefined;
});

/** `count` short WAVs under in/ (answered synchronously), plus one file that is not audio. */
async function inputs(env: E2E, count: number): Promise<void> {
  for (let i = 0; i < count; i++)
    await env.fixture('speech-16bit.wav', `in/call-${String(i).padStart(2, '0')}.wav`);
  await env.fixture('not-audio.wav', 'in/not-audio.wav');
}

/** The last journal event of each input. */
async function lastEvents(outDir: string): Promise<Map<string, string>> {
  const text = await readFile(join(outDir, '.vredact', 'journal.jsonl'), 'utf8');
  const last = new Map<string, string>();
  for (const line of text.split('\n').filter(Boolean)) {
    const record = JSON.parse(line) as { input: string; event: string };
    last.set(record.input, record.event);
  }
  return last;
}

const vredact = `node ${BIN}`;

describe('Ctrl-C from the keyboard', () => {
  it('stops the batch: exit 130, the terminal in its normal mode, what was in flight recorded, nothing sent twice', async () => {
    e2e = await setup(['--latency', '400']);
    await inputs(e2e, 12);
    term = runInPty(
      `tty > tty.txt; ${vredact} redact in -c 2 -o out; echo "exit=$?" > exit.txt; stty -a > stty.txt`,
      { cwd: e2e.dir, env: e2e.env, columns: 120 },
    );
    await term.waitFor(/redacting \d+\/13 · [^\r]*in flight/);
    // While the live line is drawn, the terminal is in its normal mode: the keyboard raises SIGINT.
    const tty = (await readFile(join(e2e.dir, 'tty.txt'), 'utf8')).trim();
    const during = await execa('stty', ['-a', '-F', tty]);
    expect(during.stdout).toMatch(/(^|\s)isig(\s|$)/);
    expect(during.stdout).toMatch(/(^|\s)icanon(\s|$)/);

    term.type('\x03');
    await term.exited;
    expect((await readFile(join(e2e.dir, 'exit.txt'), 'utf8')).trim()).toBe('exit=130');
    const after = await readFile(join(e2e.dir, 'stty.txt'), 'utf8');
    expect(after).toMatch(/(^|\s)isig(\s|$)/);
    expect(after).toMatch(/(^|\s)icanon(\s|$)/);
    expect(after).toMatch(/(^|\s)echo(\s|$)/);
    // One wording with download's (src/interrupt.ts): what it does now, what the next Ctrl-C would do, and after the summary, what to do next.
    expect(term.output()).toMatch(
      /warning: interrupted: finishing the (upload|2 uploads) in flight, then exiting; press Ctrl-C again to stop (it|them) now\r\n/,
    );
    expect(term.output()).toMatch(
      /error: interrupted: run the same command again to send the files not yet done and collect the pending jobs \(what is done is skipped\)\r\n/,
    );

    // What was in flight finished and was recorded; nothing new was started; the lock is gone.
    const out = join(e2e.dir, 'out');
    const events = await lastEvents(out);
    expect([...events.values()]).not.toContain('uploading');
    const done = [...events.values()].filter((event) => event === 'done').length;
    expect(done).toBeGreaterThan(0);
    expect(done).toBeLessThan(12);
    expect(existsSync(join(out, '.vredact', 'lock'))).toBe(false);
    const uploadsBefore = (await e2e.sandbox.stats()).uploads;
    expect(uploadsBefore).toBe(done);

    // A re-run finishes the batch and sends each file exactly once over both runs.
    const rerun = await runCli(['redact', 'in', '-c', '2', '-o', 'out'], { env: e2e.env, cwd: e2e.dir });
    expect(rerun.stderr).toMatch(
      /redacted \d+, skipped \d+ \(already done\), rejected 1, failed 0, pending 0/,
    );
    expect((await e2e.sandbox.stats()).uploads).toBe(12);
    expect((await readdir(out)).filter((name) => name.endsWith('.wav'))).toHaveLength(12);
  });

  it('a second Ctrl-C aborts the uploads in flight: exit 130, no lock, their fate left for the next run to look up', async () => {
    // Every answer takes 30 s: only an abort ends this run quickly.
    e2e = await setup(['--latency', '30000']);
    await inputs(e2e, 4);
    term = runInPty(`${vredact} redact in -c 2 -o out; echo "exit=$?" > exit.txt; stty -a > stty.txt`, {
      cwd: e2e.dir,
      env: e2e.env,
      columns: 120,
    });
    // An upload is in flight while its request is under way: one or both of the two slots.
    await term.waitFor(/[12] in flight/);
    term.type('\x03');
    // The count is the live line's, the requests under way at that moment.
    await term.waitFor(
      /interrupted: finishing the (upload|2 uploads) in flight, then exiting; press Ctrl-C again to stop (it|them) now/,
    );
    await pauseBeforeAnotherSignal();
    term.type('\x03');
    await term.exited;
    expect(term.output()).toMatch(
      /warning: aborting the (upload|2 uploads) in flight; a third interrupt exits at once\r\n/,
    );
    expect((await readFile(join(e2e.dir, 'exit.txt'), 'utf8')).trim()).toBe('exit=130');
    expect(await readFile(join(e2e.dir, 'stty.txt'), 'utf8')).toMatch(/(^|\s)icanon(\s|$)/);
    const out = join(e2e.dir, 'out');
    expect(existsSync(join(out, '.vredact', 'lock'))).toBe(false);
    // An upload cut short stays `uploading`: the next run looks for its job before sending again.
    const events = [...(await lastEvents(out)).values()];
    expect(events).toContain('uploading');
    expect(events).not.toContain('done');
  });
});

describe('progress on a terminal', () => {
  it('a live line shows the total and an ETA; the end summary fits the width', async () => {
    e2e = await setup(['--latency', '150']);
    await inputs(e2e, 8);
    term = runInPty(`${vredact} redact in -c 2 -o out`, { cwd: e2e.dir, env: e2e.env, columns: 60 });
    await term.waitFor(/redacting [1-8]\/9 · [^\r]*ETA \d+:\d\d/);
    expect(await term.exited).toBe(1); // one input is rejected
    const raw = term.output();
    const screen = screenLines(raw)
      .map((line) => line.trimEnd())
      .filter(Boolean);
    const summary = screen.slice(screen.findIndex((line) => /redacted \d/.test(line)));
    expect(summary).toEqual([
      expect.stringMatching(/^. redacted 8 · rejected 1/),
      'rejected  in/not-audio.wav  not a WAV or MP3 file',
    ]);
    for (const line of screen) expect(columnsOf(line)).toBeLessThanOrEqual(60);
  });

  it('`| cat` gets clean lines: no spinner, no carriage return, no escape sequence', async () => {
    e2e = await setup();
    await inputs(e2e, 3);
    term = runInPty(`${vredact} redact in -o out | cat`, { cwd: e2e.dir, env: e2e.env, columns: 120 });
    expect(await term.exited).toBe(0); // cat's
    const raw = term.output();
    expect(raw).not.toMatch(/\u001b/);
    expect(raw.replace(/\r\n/g, '\n')).not.toMatch(/\r/);
    expect(raw).not.toMatch(/[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏]/);
    const lines = raw.split('\r\n').filter(Boolean);
    expect(lines.filter((line) => line.startsWith('done\t'))).toHaveLength(3);
    expect(lines).toContain('rejected\tin/not-audio.wav\tnot a WAV or MP3 file');
    expect(lines).toContain('redacted 3, skipped 0 (already done), rejected 1, failed 0, pending 0');
  });
});

describe('stdout a terminal, stderr a log (`2>run.log`)', () => {
  it('the terminal gets one plain line per file as they settle; the log gets the summary', async () => {
    e2e = await setup();
    await inputs(e2e, 3);
    term = runInPty(`${vredact} redact in -o out 2>run.log`, { cwd: e2e.dir, env: e2e.env, columns: 120 });
    expect(await term.exited).toBe(1); // one input is rejected
    const lines = term.output().split('\r\n').filter(Boolean);
    expect(lines.filter((line) => line.startsWith('done\t'))).toHaveLength(3);
    expect(lines).toContain('rejected\tin/not-audio.wav\tnot a WAV or MP3 file');
    const log = await readFile(join(e2e.dir, 'run.log'), 'utf8');
    expect(log).toContain('redacted 3, skipped 0 (already done), rejected 1, failed 0, pending 0');
    expect(log).not.toMatch(/\u001b/);
  });
});

describe('a terminal that cannot redraw a line (TERM=dumb)', () => {
  it('gets no animation at all: no cursor moves, no spinner, no escape sequence; the plain summary', async () => {
    e2e = await setup(['--latency', '150']);
    await inputs(e2e, 4);
    term = runInPty(`${vredact} redact in -c 2 -o out`, {
      cwd: e2e.dir,
      env: { ...e2e.env, TERM: 'dumb' },
      columns: 120,
    });
    expect(await term.exited).toBe(1); // one input is rejected
    const raw = term.output();
    expect(raw).not.toMatch(/\u001b/);
    expect(raw.replace(/\r\n/g, '\n')).not.toMatch(/\r/);
    expect(raw).not.toMatch(/[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏]/);
    const lines = raw.split('\r\n');
    expect(lines).toContain('redacted 4, skipped 0 (already done), rejected 1, failed 0, pending 0');
    expect(lines).toContain('rejected  in/not-audio.wav  not a WAV or MP3 file');
  });
});

describe('file names on a terminal', () => {
  it('bidirectional controls are shown escaped, and a wide name is cut within the width', async () => {
    e2e = await setup();
    await e2e.fixture('not-audio.wav', 'in/bad-h\u202eevil.wav');
    await e2e.fixture('not-audio.wav', `in/a${'日本語'.repeat(12)}.wav`);
    term = runInPty(`${vredact} redact in -o out`, { cwd: e2e.dir, env: e2e.env, columns: 40 });
    expect(await term.exited).toBe(1);
    const raw = term.output();
    expect(raw).not.toMatch(/\u202e/);
    const screen = screenLines(raw)
      .map((line) => line.trimEnd())
      .filter(Boolean);
    expect(screen).toContainEqual(expect.stringMatching(/^rejected {2}in\/bad-h\\u202eevil\.wav/));
    // The wide name keeps its end (its extension); the reason, with no room beside it, shows on its own row.
    expect(screen).toContainEqual(expect.stringMatching(/^rejected {2}….*日本語\.wav$/));
    expect(screen).toContainEqual(expect.stringMatching(/^ {2}not a WAV or MP3 file$/));
    for (const line of screen) expect(columnsOf(line)).toBeLessThanOrEqual(40);
  });
});

describe('tables on a terminal', () => {
  it('`jobs list` draws its header without colour (red reads as an error), and with no colour at all under NO_COLOR', async () => {
    e2e = await setup();
    // A job to list: with none, no table is drawn.
    await runCli(['jobs', 'create'], { env: e2e.env });
    term = runInPty(`${vredact} jobs list`, { cwd: e2e.dir, env: e2e.env, columns: 120 });
    expect(await term.exited).toBe(0);
    expect(term.output()).toMatch(/JOB ID/);
    // SGR 31 (red) or 91 (bright red), alone or among other attributes.
    expect(term.output()).not.toMatch(/\u001b\[(?:[\d;]*;)?(?:31|91)(?:;[\d;]*)?m/);

    // CLICOLOR=0 as gh reads it: it drew a grey frame, a bold header and a cyan spinner.
    // NO_COLOR with FORCE_COLOR: Node.js warned of the pair on stderr, in two lines.
    for (const off of [{ NO_COLOR: '1' }, { CLICOLOR: '0' }, { NO_COLOR: '1', FORCE_COLOR: '1' }]) {
      term = runInPty(`${vredact} jobs list`, { cwd: e2e.dir, env: { ...e2e.env, ...off }, columns: 120 });
      expect(await term.exited).toBe(0);
      expect(term.output()).toMatch(/JOB ID/);
      expect(term.output()).not.toMatch(/\u001b\[[\d;]*m/);
      expect(term.output()).not.toMatch(/warning/i);
    }
  });
  it('`jobs content` of 5,000 files prints every row as aligned columns, not a drawn table', async () => {
    // cli-table3 builds its whole table in memory, in time that grows faster than its rows: 100,000
    // rows took 700 s.
    const ITEMS = 5000;
    const items = Array.from({ length: ITEMS }, (_, i) => ({
      id: i,
      job_id: 'job-1',
      file_name: `f${i}.wav`,
      audio_duration: 75,
      created_at: '2026-01-01T00:00:00Z',
    }));
    const body = Buffer.from(JSON.stringify({ jobContent: items }));
    const server = await startScriptedServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': body.length });
      res.end(body);
    });
    try {
      e2e = await setup();
      const env = { ...e2e.env, VREDACT_BASE_URL: server.baseUrl };
      term = runInPty(`${vredact} jobs content job-1`, { cwd: e2e.dir, env, columns: 120 });
      expect(await term.exited).toBe(0);
      const lines = screenLines(term.output()).filter(Boolean);
      expect(lines[0]).toMatch(/^ID +FILE NAME +DURATION +CREATED$/);
      // The time is marked UTC for a person, in the long list's columns as in the drawn table.
      expect(lines).toContain(`4999  f4999.wav  1:15      2026-01-01 00:00:00 UTC`);
      expect(
        lines.filter((line) => /^\d+ +f\d+\.wav +1:15 +2026-01-01 00:00:00 UTC$/.test(line)),
      ).toHaveLength(ITEMS);
      expect(term.output()).not.toMatch(/[│┌─]/);
    } finally {
      await server.close();
    }
  });
});

describe('the login prompt', () => {
  /** Runs `vredact login` in a terminal, types `key` at its prompt; its exit code, and `stty -a` after. */
  async function typeAtPrompt(key: string): Promise<{ exit: string; stty: string }> {
    e2e = await setup();
    term = runInPty(`${vredact} login; echo "exit=$?" > exit.txt; stty -a > stty.txt`, {
      cwd: e2e.dir,
      env: e2e.env,
      columns: 120,
    });
    await term.waitFor(/Paste your usage token/);
    term.type(key);
    await term.exited;
    const exit = (await readFile(join(e2e.dir, 'exit.txt'), 'utf8')).trim();
    return { exit, stty: await readFile(join(e2e.dir, 'stty.txt'), 'utf8') };
  }

  it('Ctrl-C exits 130 quietly, stores nothing, and leaves the terminal in its normal mode', async () => {
    const { exit, stty } = await typeAtPrompt('\x03');
    expect(exit).toBe('exit=130');
    expect(term?.output()).not.toMatch(/error|Abort/i);
    expect(stty).toMatch(/(^|\s)icanon(\s|$)/);
    expect(stty).toMatch(/(^|\s)echo(\s|$)/);
    const config = join(e2e?.dir ?? '', '.config', 'config.json');
    if (existsSync(config)) expect(await readFile(config, 'utf8')).not.toMatch(/token/);
  });

  it('Ctrl-D (the end of input) is no token given: one line, exit 2, no Abort', async () => {
    const { exit } = await typeAtPrompt('\x04');
    expect(exit).toBe('exit=2');
    expect(term?.output()).toMatch(/error: no token was given/);
    expect(term?.output()).not.toMatch(/Abort/i);
  });
});
