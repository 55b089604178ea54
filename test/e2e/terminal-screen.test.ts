/**
 * What a person's screen shows, through a terminal emulator (tmux) rather than the raw bytes: the
 * echo of a key after the live line, the ETA while the last file is still under way, the tick or
 * cross of the end summary, and the cursor after the run is suspended.
 */
import { readdir } from 'node:fs/promises';
import type { ServerResponse } from 'node:http';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { BIN, isolatedEnv, tempDir } from '../helpers/cli.js';
import { type E2E, setup } from '../helpers/e2e.js';
import { runInPty, screenLines } from '../helpers/pty.js';
import { sendJson, startScriptedServer } from '../helpers/scripted-server.js';
import { answerWithSpeech, speechInputs } from '../helpers/speech-files.js';
import { hasTmux, startTmux, type TmuxTerminal } from '../helpers/tmux.js';

let e2e: E2E | undefined;
let term: TmuxTerminal | undefined;
afterEach(async () => {
  await term?.kill();
  term = undefined;
  await e2e?.cleanup();
  e2e = undefined;
});

/** `count` short WAVs under in/. */
async function inputs(env: E2E, count: number): Promise<void> {
  for (let i = 0; i < count; i++)
    await env.fixture('speech-16bit.wav', `in/call-${String(i).padStart(2, '0')}.wav`);
}

const vredact = `node ${BIN}`;
/** A row that starts with one of the spinner's frames: the live line. */
const LIVE_ROW = /^[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] /;

/** A service that answers each upload with speech, holding those that `hold` picks until `release`. */
async function heldService(hold: (upload: number) => boolean) {
  let release: () => void = () => {};
  const held = new Promise<void>((resolve) => (release = resolve));
  let uploads = 0;
  const server = await startScriptedServer(async (req, res: ServerResponse) => {
    if (req.url !== '/api/speech-to-speech-biometric-redaction')
      return sendJson(res, 404, { error: 404, message: 'not found' });
    if (hold(++uploads)) await held;
    return answerWithSpeech(res);
  });
  return {
    server,
    release: () => release(),
    /** Lets the uploads go, and stops the service, the terminal and the folder. */
    async end(dir: { cleanup(): Promise<void> }): Promise<void> {
      release();
      await server.close();
      await term?.kill();
      term = undefined;
      await dir.cleanup();
    },
  };
}

/** The WAV files a run wrote to `folder`. */
async function outputsIn(folder: string): Promise<string[]> {
  return (await readdir(folder)).filter((name) => name.endsWith('.wav'));
}

describe.skipIf(!hasTmux)('the live line on screen', () => {
  it('Ctrl-C at a live line as wide as the terminal leaves no stale copy of it above the warning', async () => {
    e2e = await setup(['--latency', '400']);
    await inputs(e2e, 12);
    // At 12 columns the line `redacting 3/12 · …` is always cut to the width: the cursor ends at
    // the last column, where the `^C` the terminal echoes would start a new row.
    term = await startTmux(`${vredact} redact in -c 2 -o out`, {
      cwd: e2e.dir,
      env: { ...e2e.env, NO_COLOR: '1' },
      columns: 12,
    });
    await term.waitFor(LIVE_ROW);
    await term.keys('C-c');
    expect(await term.exited()).toBe(130);
    const rows = await term.rows();
    expect(rows.join('\n')).toMatch(/warning: int/);
    // The live line gave way to the warning and then to the summary: no frame of it is left.
    expect(rows.filter((row) => LIVE_ROW.test(row))).toEqual([]);
    expect(rows).toContainEqual(expect.stringMatching(/^✖ /));
  });
});

describe.skipIf(!hasTmux)('narrowing the terminal mid-run', () => {
  it('leaves no fragment of the live line the terminal rewrapped, and every line printed above it', async () => {
    const FILES = 4;
    // Every upload is answered once the test has narrowed the terminal: until then the live line
    // keeps one width, `⠙ redacting 0/4 · 2 in flight · 0:03 elapsed · ETA -:--`.
    const { server, release, end } = await heldService(() => true);
    const dir = await tempDir('vredact-narrowed-');
    try {
      await speechInputs(dir.path, FILES);
      // The screen is full before the run, as after a day's work: the live line is on its last row.
      term = await startTmux(`seq -f 'log line %g' 1 30; ${vredact} redact in -c 2 -o out`, {
        cwd: dir.path,
        env: isolatedEnv(dir.path, {
          VREDACT_BASE_URL: server.baseUrl,
          VREDACT_TOKEN: 'vr_narrowed_0123456789abcdef',
          NO_COLOR: '1',
        }),
        columns: 100,
        rows: 24,
      });
      // 56 columns, for a second or more: three rows at 25 columns.
      await term.waitFor(/^[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] redacting 0\/4 · 2 in flight · 0:0[2-9] elapsed · ETA -:--$/);
      await term.resize(25);
      // 15 columns: two rows at 12 columns.
      await term.waitFor(/^[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] redacting 0\/4$/);
      await term.resize(12);
      await term.waitFor(/^[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] redacti…$/);
      release();
      expect(await term.exited()).toBe(0);
      const rows = await term.rows();
      for (let n = 1; n <= 30; n++) expect(rows.filter((row) => row === `log line ${n}`)).toHaveLength(1);
      // Only the log lines and the end summary are left: no row of a live line, whole or cut by the rewrap.
      expect(rows.filter((row) => !/^log line \d+$/.test(row) && !/^✔ red/.test(row))).toEqual([]);
      expect(await outputsIn(join(dir.path, 'out'))).toHaveLength(FILES);
    } finally {
      await end(dir);
    }
  });
});

describe.skipIf(!hasTmux)('the problem list in a narrow terminal', () => {
  it('at 20 columns, two long paths that share their folders show their own file names', async () => {
    e2e = await setup();
    const folder = 'in/2024-spring-campaign/field-interviews';
    await e2e.fixture('not-audio.wav', `${folder}/call-01.wav`);
    await e2e.fixture('not-audio.wav', `${folder}/call-02.wav`);
    term = await startTmux(`${vredact} redact in -o out`, {
      cwd: e2e.dir,
      env: { ...e2e.env, NO_COLOR: '1' },
      columns: 20,
    });
    expect(await term.exited()).toBe(1);
    const rows = await term.rows();
    const named = rows.filter((row) => row.startsWith('rejected'));
    expect(named).toHaveLength(2);
    expect(named[0]).toMatch(/-01\.wav$/);
    expect(named[1]).toMatch(/-02\.wav$/);
    // The reason, which says what is wrong, is still there for each, on its own row.
    expect(rows.filter((row) => /^ +not a WAV/.test(row))).toHaveLength(2);
    for (const row of rows) expect(row.length).toBeLessThanOrEqual(20);
  });
});

describe.skipIf(!hasTmux)('the ETA while the last file is under way', () => {
  it('is never 0:00 while the service still holds the last upload; a dash once it is overdue', async () => {
    const FILES = 20;
    // The last upload is answered only once the test has read the screen.
    const { server, release, end } = await heldService((upload) => upload === FILES);
    const dir = await tempDir('vredact-eta-');
    try {
      await speechInputs(dir.path, FILES);
      term = await startTmux(`${vredact} redact in -c 4 -o out`, {
        cwd: dir.path,
        env: isolatedEnv(dir.path, {
          VREDACT_BASE_URL: server.baseUrl,
          VREDACT_TOKEN: 'vr_eta_0123456789abcdef',
          NO_COLOR: '1',
        }),
        columns: 120,
      });
      const lastUnderWay = new RegExp(`^. redacting ${FILES - 1}/${FILES} · 1 in flight .*ETA`);
      const first = (await term.waitFor(lastUnderWay)).find((row) => lastUnderWay.test(row));
      // At the run's pace the last file was due at once: the line said 0:00 while it was sent.
      expect(first).not.toMatch(/ETA 0:00/);
      await term.waitFor(new RegExp(`${lastUnderWay.source} -:--$`));
      release();
      expect(await term.exited()).toBe(0);
      expect(await term.rows()).toContainEqual(expect.stringMatching(new RegExp(`^✔ redacted ${FILES} `)));
      expect(await outputsIn(join(dir.path, 'out'))).toHaveLength(FILES);
    } finally {
      await end(dir);
    }
  });
});

describe.skipIf(!hasTmux)('Ctrl-Z', () => {
  it('suspending a run gives the shell back its cursor; `fg` resumes the live line and the run ends well', async () => {
    e2e = await setup(['--latency', '300']);
    await inputs(e2e, 6);
    term = await startTmux("PS1='$ ' bash --norc --noprofile -i", {
      cwd: e2e.dir,
      env: e2e.env,
      columns: 80,
    });
    await term.waitFor(/^\$/);
    await term.keys(`${vredact} redact in -c 1 -o out`, 'Enter');
    await term.waitFor(LIVE_ROW);
    await term.keys('C-z');
    await term.waitFor(/Stopped/);
    await term.waitFor(/^\$$/);
    // The spinner hides the cursor while it draws; the prompt it leaves for must show it.
    expect(await term.cursorVisible()).toBe(true);
    await term.keys('fg', 'Enter');
    const rows = await term.waitFor(/^✔ redacted 6 /);
    expect(rows.filter((row) => LIVE_ROW.test(row))).toEqual([]);
    await term.waitFor(/^\$$/);
    expect(await term.cursorVisible()).toBe(true);
  });
});

describe('the end summary', () => {
  it('a --no-wait run that submitted every file (exit 0) ends with a tick, not a cross', async () => {
    e2e = await setup(['--sync-limit', '0']);
    await inputs(e2e, 3);
    const pty = runInPty(`${vredact} redact in -o out --no-wait`, {
      cwd: e2e.dir,
      env: { ...e2e.env, NO_COLOR: '1' },
      columns: 100,
    });
    expect(await pty.exited).toBe(0);
    const screen = screenLines(pty.output()).map((line) => line.trimEnd());
    expect(screen).toContainEqual(expect.stringMatching(/^✔ redacted 0 · .*pending 3/));
    expect(screen.join('\n')).not.toMatch(/✖/);
  });
});
