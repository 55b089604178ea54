/**
 * How a token reaches vredact, through the built binary: typed at a real terminal (tmux, so what is
 * checked is what a person would see on screen), given with `--token`, and where the config file is
 * for a script.
 */
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { BIN, isolatedEnv, runCli, tempDirPerTest } from '../helpers/cli.js';
import { until } from '../helpers/e2e.js';
import { sendJson, startScriptedServer } from '../helpers/scripted-server.js';
import { hasTmux, startTmux, type TmuxTerminal } from '../helpers/tmux.js';

const TOKEN = 'vr_typed_at_the_terminal_0000f00d';
const work = tempDirPerTest('vredact-token-entry-');
let term: TmuxTerminal | undefined;
afterEach(async () => {
  await term?.kill();
  term = undefined;
});

const configFile = () => join(work.path, 'cfg', 'config.json');

/** How many times the screen shows the question. */
const asked = (rows: string[]) => rows.filter((row) => row.includes('it will not be shown')).length;

/** The rows once `done` holds for them; fails after 30 s. */
async function rowsWhen(shown: TmuxTerminal, done: (rows: string[]) => boolean): Promise<string[]> {
  for (let polls = 0; polls < 600; polls++) {
    const rows = await shown.rows();
    if (done(rows)) return rows;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(
    `the terminal never came to the state awaited; it shows:\n${(await shown.rows()).join('\n')}`,
  );
}

describe.skipIf(!hasTmux)('config set token - at a terminal', () => {
  async function start(): Promise<TmuxTerminal> {
    term = await startTmux(`node ${BIN} config set token -`, {
      cwd: work.path,
      env: isolatedEnv(join(work.path, 'cfg')),
    });
    // It read the terminal as a file, with echo and no prompt, until Ctrl-D.
    await term.waitFor(/token \(it will not be shown\)/);
    return term;
  }

  test('asks without echo: the typed token is stored whole and never on screen', async () => {
    const shown = await start();
    await shown.keys(TOKEN, 'Enter');
    expect(await shown.exited()).toBe(0);
    expect((await shown.rows()).join('\n')).not.toContain('typed_at');
    expect(JSON.parse(await readFile(configFile(), 'utf8'))).toEqual({ token: TOKEN });
  });

  test('Ctrl-C at the prompt: exit 130, nothing stored', async () => {
    const shown = await start();
    await shown.keys('vr_half_typed', 'C-c');
    expect(await shown.exited()).toBe(130);
    expect((await shown.rows()).join('\n')).not.toMatch(/half_typed|error/);
    expect(existsSync(configFile())).toBe(false);
  });

  test('Ctrl-Z at the prompt, then fg: asked again, the token typed after stored whole, the terminal sane', async () => {
    const shell = (term = await startTmux(`PS1='$ ' exec bash --norc --noprofile -i`, {
      cwd: work.path,
      env: isolatedEnv(join(work.path, 'cfg')),
    }));
    await shell.waitFor(/^\$/);
    await shell.keys(`node ${BIN} config set token -`, 'Enter');
    await shell.waitFor(/token \(it will not be shown\)/);
    await shell.keys('vr_half_typed', 'C-z');
    await shell.waitFor(/Stopped/);
    await shell.keys('fg', 'Enter');
    // It ended after `fg` ("stopped before its work was finished"): readline left its input paused.
    const rows = await rowsWhen(
      shell,
      (now) => asked(now) === 2 || now.some((row) => row.startsWith('error')),
    );
    expect(rows.join('\n')).not.toMatch(/error/);
    await shell.keys(TOKEN, 'Enter');
    // Keys typed before the prompt is back would be read by the prompt.
    await shell.waitFor(/^\$$/);
    await shell.keys('echo "status=$?"; stty -a > stty.txt', 'Enter');
    await shell.waitFor(/^status=\d+$/);
    expect((await shell.rows()).join('\n')).not.toMatch(/typed_at|half_typed/);
    expect((await shell.rows()).filter((row) => row.startsWith('status='))).toEqual(['status=0']);
    expect(JSON.parse(await readFile(configFile(), 'utf8'))).toEqual({ token: TOKEN });
    const stty = await readFile(join(work.path, 'stty.txt'), 'utf8');
    for (const mode of ['echo', 'icanon', 'isig']) expect(stty).toMatch(new RegExp(`(^|\\s)${mode}(\\s|$)`));
    expect(await shell.cursorVisible()).toBe(true);
  }, 60_000);
});

describe.skipIf(!hasTmux)('login at a terminal', () => {
  test('while the service is checking the token, a line says so; it is gone once the token is stored', async () => {
    let answer: (() => void) | undefined;
    const answered = new Promise<void>((resolve) => (answer = resolve));
    const server = await startScriptedServer(async (_req, res) => {
      await answered;
      sendJson(res, 200, { jobs: [] });
    });
    try {
      const shown = (term = await startTmux(`node ${BIN} login`, {
        cwd: work.path,
        env: isolatedEnv(join(work.path, 'cfg'), { VREDACT_BASE_URL: server.baseUrl }),
      }));
      await shown.waitFor(/token \(it will not be shown\)/);
      await shown.keys(TOKEN, 'Enter');
      // Only the question was on screen while the service took its time.
      await shown.waitFor(/Checking the token with 127\.0\.0\.1:\d+/);
      // The line comes as the request goes: the one request is held until answered here.
      await until(async () => server.received.length === 1, 30_000);
      answer?.();
      expect(await shown.exited()).toBe(0);
      expect(server.received).toHaveLength(1);
      const rows = await shown.rows();
      expect(rows.filter((row) => /Checking/.test(row))).toEqual([]);
      expect(rows.join('')).toMatch(/Logged in to 127\.0\.0\.1:\d+; token vr_…f00d stored in/);
    } finally {
      answer?.();
      await server.close();
    }
  });
});

describe.skipIf(!hasTmux)('the question with standard error sent elsewhere', () => {
  test('login 2>/dev/null at a terminal asks on the terminal itself; the typed token is checked and stored, never shown', async () => {
    const server = await startScriptedServer((_req, res) => sendJson(res, 200, { jobs: [] }));
    try {
      const shown = (term = await startTmux(`node ${BIN} login 2>/dev/null`, {
        cwd: work.path,
        env: isolatedEnv(join(work.path, 'cfg'), { VREDACT_BASE_URL: server.baseUrl }),
      }));
      // The question went to standard error, which nobody sees: an empty screen, waiting.
      await shown.waitFor(/token \(it will not be shown\)/);
      await shown.keys(TOKEN, 'Enter');
      expect(await shown.exited()).toBe(0);
      const rows = await shown.rows();
      expect(asked(rows)).toBe(1);
      expect(rows.join('\n')).not.toMatch(/typed_at|Logged in/);
      expect(server.received).toHaveLength(1);
      expect(JSON.parse(await readFile(configFile(), 'utf8'))).toMatchObject({ token: TOKEN });
    } finally {
      await server.close();
    }
  });
});

describe('--token', () => {
  test('login --token checks and stores that token, warning that ps shows it', async () => {
    const server = await startScriptedServer((req, res) =>
      req.headers.authorization === `Bearer ${TOKEN}`
        ? sendJson(res, 200, { jobs: [] })
        : sendJson(res, 401, { error: 401, message: 'no' }),
    );
    try {
      const env = isolatedEnv(join(work.path, 'cfg'), { VREDACT_BASE_URL: server.baseUrl });
      // The flag was taken, then ignored: "standard input is not a terminal", exit 2.
      const login = await runCli(['login', '--token', TOKEN], { env });
      expect(login.exitCode).toBe(0);
      expect(server.received.map((r) => r.headers.authorization)).toEqual([`Bearer ${TOKEN}`]);
      // Stored with the service it was checked with, which the config file did not name.
      expect(JSON.parse(await readFile(configFile(), 'utf8'))).toEqual({
        'base-url': server.baseUrl,
        token: TOKEN,
      });
      expect(String(login.stderr)).toMatch(/^warning: --token is visible to other users .*ps/m);
      expect(`${String(login.stdout)}${String(login.stderr)}`).not.toContain(TOKEN);

      const both = await runCli(['login', '--token', TOKEN, '--token-stdin'], { env, input: TOKEN });
      expect(both.exitCode).toBe(2);
      expect(String(both.stderr)).toMatch(/^error: give the token one way/m);
    } finally {
      await server.close();
    }
  });

  test('any command given --token warns that ps shows it; VREDACT_TOKEN does not', async () => {
    const server = await startScriptedServer((_req, res) => sendJson(res, 200, { jobs: [] }));
    try {
      const env = isolatedEnv(join(work.path, 'cfg'), { VREDACT_BASE_URL: server.baseUrl });
      const flag = await runCli(['jobs', 'list', '--token', TOKEN], { env });
      expect(flag.exitCode).toBe(0);
      expect(String(flag.stderr)).toMatch(/^warning: --token is visible to other users/m);
      expect(String(flag.stderr)).not.toContain(TOKEN);
      const fromEnv = await runCli(['jobs', 'list'], { env: { ...env, VREDACT_TOKEN: TOKEN } });
      expect(fromEnv.exitCode).toBe(0);
      expect(String(fromEnv.stderr)).not.toMatch(/warning/);
    } finally {
      await server.close();
    }
  });
});

test('config path --json prints JSON, as every command does under --json', async () => {
  const env = isolatedEnv(join(work.path, 'cfg'));
  const result = await runCli(['config', 'path', '--json'], { env });
  expect(result.exitCode).toBe(0);
  expect(JSON.parse(String(result.stdout))).toEqual({ path: configFile() });
});

test('a config file whose value is of the wrong kind: exit 2, one line naming the file and the key', async () => {
  const env = isolatedEnv(join(work.path, 'cfg'));
  expect((await runCli(['config', 'set', 'gender', 'f'], { env })).exitCode).toBe(0);
  await writeFile(configFile(), '{"concurrency": 8, "token": true}');
  const list = await runCli(['config', 'list'], { env, cwd: work.path });
  expect(list.exitCode).toBe(2);
  expect(String(list.stderr).trim().split('\n')).toEqual([
    `error: the config file ${configFile()} holds true or false as token, where a setting is text`,
    'hint: correct it, or delete it and set the values again with `vredact config set`',
  ]);
  await writeFile(configFile(), '{"concurrency": 8}');
  const get = await runCli(['config', 'get', 'concurrency'], { env });
  expect(String(get.stdout).trim()).toBe('8');
});

test.each([
  [['config', 'set', 'concurrency', '1e1']],
  [['redact', 'x.wav', '--dry-run', '-c', '8.0']],
  [['redact', 'x.wav', '--dry-run', '-o', '']],
])('%j: exit 2 before anything is done', async (args) => {
  const result = await runCli(args, { env: isolatedEnv(join(work.path, 'cfg')), cwd: work.path });
  expect(result.exitCode).toBe(2);
  expect(String(result.stderr)).toMatch(
    /^error: ((-c, --)?concurrency must be a whole number|--out-dir was given)/,
  );
  expect(existsSync(configFile())).toBe(false);
});

test('an empty token (blank standard input) says what to do next; nothing is sent or stored', async () => {
  const server = await startScriptedServer((_req, res) => sendJson(res, 200, { jobs: [] }));
  try {
    const env = isolatedEnv(join(work.path, 'cfg'), { VREDACT_BASE_URL: server.baseUrl });
    for (const input of ['', ' \r\n']) {
      const login = await runCli(['login', '--token-stdin'], { env, input });
      expect(login.exitCode).toBe(2);
      expect(String(login.stderr).trim().split('\n')).toEqual([
        'error: no token was given',
        'hint: pipe the token in alone (`vredact login --token-stdin < token.txt`), or run `vredact login` at a terminal',
      ]);
    }
    expect(server.received).toHaveLength(0);
    expect(existsSync(configFile())).toBe(false);
  } finally {
    await server.close();
  }
});
