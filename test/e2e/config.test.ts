import { existsSync } from 'node:fs';
import { mkdir, readFile, stat, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { isolatedEnv, runCli, tempDir } from '../helpers/cli.js';
import { MOUNT_SKIP_REASON, tryMountTmpfs } from '../helpers/mount.js';
import { sendJson, startScriptedServer } from '../helpers/scripted-server.js';

const TOKEN = 'vr_config_e2e_token_0000beef';
let work: Awaited<ReturnType<typeof tempDir>>;

beforeAll(async () => {
  work = await tempDir();
});
afterAll(async () => {
  await work?.cleanup();
});

test('config set/get/list/unset/path through the binary: file mode 0600, the token never printed whole', async () => {
  const env = isolatedEnv(join(work.path, 'cfg'));
  expect((await runCli(['config', 'set', 'base-url', 'http://127.0.0.1:9'], { env })).exitCode).toBe(0);
  expect((await runCli(['config', 'set', 'token', '-'], { env, input: `${TOKEN}\n` })).exitCode).toBe(0);
  expect((await runCli(['config', 'set', 'gender', 'opposite'], { env })).exitCode).toBe(0);

  const path = String((await runCli(['config', 'path'], { env })).stdout).trim();
  expect(path.startsWith(join(work.path, 'cfg'))).toBe(true);
  expect((await stat(path)).mode & 0o777).toBe(0o600);
  expect(JSON.parse(await readFile(path, 'utf8'))).toMatchObject({ token: TOKEN, gender: 'opposite' });

  const get = await runCli(['config', 'get', 'token'], { env });
  expect(String(get.stdout).trim()).toBe('vr_…beef');
  const list = await runCli(['config', 'list', '--verbose'], { env });
  expect(list.stdout).toContain('gender\topposite\tconfig');
  expect(`${get.stdout}${get.stderr}${list.stdout}${list.stderr}`).not.toContain(TOKEN);

  // The environment beats the file; a flag beats both.
  const fromEnv = await runCli(['config', 'get', 'base-url'], {
    env: { ...env, VREDACT_BASE_URL: 'https://env.example' },
  });
  expect(String(fromEnv.stdout).trim()).toBe('https://env.example');
  const fromFlag = await runCli(['config', 'get', 'base-url', '--base-url', 'https://flag.example'], {
    env: { ...env, VREDACT_BASE_URL: 'https://env.example' },
  });
  expect(String(fromFlag.stdout).trim()).toBe('https://flag.example');

  const refused = await runCli(['config', 'set', 'base-url', 'http://api.example.com'], { env });
  expect(refused.exitCode).toBe(2);
  expect(refused.stderr).toMatch(/plain http/);

  expect((await runCli(['config', 'unset', 'gender'], { env })).exitCode).toBe(0);
  expect(JSON.parse(await readFile(path, 'utf8')).gender).toBeUndefined();
  expect((await runCli(['config', 'get', 'gender'], { env })).exitCode).toBe(1);
});

test('no service URL: exit 2 with a hint that mentions the sandbox', async () => {
  const result = await runCli(['jobs', 'list'], { env: isolatedEnv(join(work.path, 'empty')) });
  expect(result.exitCode).toBe(2);
  expect(result.stderr).toMatch(/no service URL/);
  expect(result.stderr).toMatch(/vredact sandbox/);
});

test.skipIf(process.platform === 'win32')(
  "without VREDACT_CONFIG_DIR, a value `config set` writes is read back by `config get` and a command's run",
  async () => {
    const home = join(work.path, 'home');
    const env = isolatedEnv('', { HOME: home, XDG_CONFIG_HOME: join(home, 'xdg') });
    delete env.VREDACT_CONFIG_DIR;
    expect((await runCli(['config', 'set', 'base-url', 'http://127.0.0.1:9'], { env })).exitCode).toBe(0);
    const path = String((await runCli(['config', 'path'], { env })).stdout).trim();
    expect(path.startsWith(home)).toBe(true);
    if (process.platform === 'linux') expect(path).toBe(join(home, 'xdg', 'vredact', 'config.json'));
    expect(JSON.parse(await readFile(path, 'utf8'))).toEqual({ 'base-url': 'http://127.0.0.1:9' });
    expect(String((await runCli(['config', 'get', 'base-url'], { env })).stdout).trim()).toBe(
      'http://127.0.0.1:9',
    );
    // jobs list took its URL from the file: it reached for the service there, with no token.
    const jobs = await runCli(['jobs', 'list'], { env });
    expect(jobs.exitCode).toBe(2);
    expect(jobs.stderr).toMatch(/no usage token/i);
  },
);

test.skipIf(process.platform === 'win32')(
  'a config folder that is a file, or a config file that is a folder: exit 2 saying which and what to do, not "no such file or folder"',
  async () => {
    const place = join(work.path, 'in-the-way');
    const file = join(place, 'notes');
    const xdg = join(place, 'xdg');
    const folder = join(place, 'cfg');
    await mkdir(join(xdg), { recursive: true });
    await mkdir(join(folder, 'config.json'), { recursive: true });
    await writeFile(file, 'not a folder');
    await writeFile(join(xdg, 'vredact'), 'not a folder');
    const byXdg = isolatedEnv('', { HOME: place, XDG_CONFIG_HOME: xdg });
    delete byXdg.VREDACT_CONFIG_DIR;
    const cases: [NodeJS.ProcessEnv, string, string][] = [
      [
        isolatedEnv(file),
        `${join(file, 'config.json')}: ${file} is a file, not a folder`,
        'move or rename it',
      ],
      [
        isolatedEnv(join(file, 'sub')),
        `${join(file, 'sub', 'config.json')}: ${file} is a file, not a folder`,
        'move or rename it',
      ],
      [
        byXdg,
        `${join(xdg, 'vredact', 'config.json')}: ${join(xdg, 'vredact')} is a file, not a folder`,
        'move or rename it',
      ],
      [
        isolatedEnv(folder),
        `${join(folder, 'config.json')}: it is a folder, not a file`,
        'move or rename that folder',
      ],
    ];
    for (const [env, said, fix] of cases) {
      for (const args of [
        ['config', 'list'],
        ['config', 'set', 'gender', 'f'],
      ]) {
        const run = await runCli(args, { env, cwd: work.path });
        expect([run.exitCode, String(run.stderr).trim().split('\n')]).toEqual([
          2,
          [
            `error: cannot read the config file ${said}`,
            `hint: ${fix}, or point VREDACT_CONFIG_DIR at another folder`,
          ],
        ]);
      }
    }
    expect(await readFile(file, 'utf8')).toBe('not a folder');
  },
);

test('a config file that is not JSON: exit 2, one line naming the file, one saying what to do', async () => {
  const dir = join(work.path, 'broken');
  const env = isolatedEnv(dir);
  await mkdir(dir, { recursive: true });
  const path = join(dir, 'config.json');
  await writeFile(path, '{"token": ');
  for (const args of [['status'], ['config', 'get', 'gender'], ['config', 'set', 'gender', 'f']]) {
    const result = await runCli(args, { env, cwd: work.path });
    expect(result.exitCode).toBe(2);
    const lines = String(result.stderr).trim().split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toBe(`error: the config file ${path} is not JSON (${jsonError('{"token": ')})`);
    expect(lines[1]).toMatch(/^hint: correct it, or delete it/);
  }
  expect(await readFile(path, 'utf8')).toBe('{"token": ');
});

test('a config file that is not JSON does not stop `config path`: it says where the file to fix is', async () => {
  // It stopped with the same error as every other command, so `$EDITOR "$(vredact config path)"` failed.
  const dir = join(work.path, 'broken-path');
  const env = isolatedEnv(dir);
  await mkdir(dir, { recursive: true });
  const path = join(dir, 'config.json');
  await writeFile(path, '{"token": ');
  const plain = await runCli(['config', 'path'], { env, cwd: work.path });
  expect([plain.exitCode, plain.stdout, plain.stderr]).toEqual([0, path, '']);
  const json = await runCli(['config', 'path', '--json'], { env, cwd: work.path });
  expect(json.exitCode).toBe(0);
  expect(JSON.parse(String(json.stdout))).toEqual({ path });
  expect(await readFile(path, 'utf8')).toBe('{"token": ');
});

function jsonError(text: string): string {
  try {
    JSON.parse(text);
    return '';
  } catch (error) {
    return (error as Error).message;
  }
}

test('a config folder that cannot be written (read-only): exit 2 naming the config file, not a temporary file', async ({
  skip,
}) => {
  const mounted = await tryMountTmpfs(join(work.path, 'read-only-config'), '64k');
  if (!mounted) return skip(MOUNT_SKIP_REASON);
  const server = await startScriptedServer((_req, res) => sendJson(res, 200, { jobs: [] }));
  try {
    await mounted.readOnly();
    const env = isolatedEnv(mounted.path, { VREDACT_BASE_URL: server.baseUrl });
    const file = join(mounted.path, 'config.json');
    const login = await runCli(['login', '--token-stdin'], { env, input: `${TOKEN}\n` });
    const set = await runCli(['config', 'set', 'gender', 'f'], { env });
    expect(login.exitCode).toBe(2);
    expect(String(login.stderr)).toMatch(
      /^error: the service accepted the token, but it was not stored: cannot write the config file /,
    );
    expect(set.exitCode).toBe(2);
    expect(String(set.stderr)).toMatch(/^error: cannot write the config file /);
    for (const run of [login, set]) {
      expect(String(run.stderr)).toContain(`${file}: read-only file system (EROFS)`);
      expect(String(run.stderr)).toMatch(/hint: make its folder writable, or point VREDACT_CONFIG_DIR/);
      expect(String(run.stderr)).not.toMatch(/tmp-|--verbose/);
      expect(`${String(run.stdout)}${String(run.stderr)}`).not.toContain(TOKEN);
    }
  } finally {
    await server.close();
    await mounted.unmount();
  }
});

test.skipIf(process.platform === 'win32')(
  'a config folder that is a symbolic link to nothing: exit 2 saying so and what to do, not "already exists"; nothing made',
  async () => {
    const server = await startScriptedServer((_req, res) => sendJson(res, 200, { jobs: [] }));
    try {
      const folder = join(work.path, 'dangling-config');
      const target = join(work.path, 'moved-away');
      await symlink(target, folder);
      const env = isolatedEnv(folder, { VREDACT_BASE_URL: server.baseUrl });
      const set = await runCli(['config', 'set', 'gender', 'f'], { env });
      const login = await runCli(['login', '--token-stdin'], { env, input: TOKEN });
      const said = `cannot write the config file ${join(folder, 'config.json')}: ${folder} is a symbolic link to ${target}, which does not exist`;
      expect([set.exitCode, String(set.stderr).split('\n')[0]]).toEqual([2, `error: ${said}`]);
      expect([login.exitCode, String(login.stderr).split('\n')[0]]).toEqual([
        2,
        `error: the service accepted the token, but it was not stored: ${said}`,
      ]);
      for (const run of [set, login]) {
        expect(String(run.stderr)).toContain(
          `hint: make the folder it points to (\`mkdir -p ${target}\`), or remove the link (\`rm ${folder}\`), or point VREDACT_CONFIG_DIR at another folder`,
        );
        expect(String(run.stderr)).not.toMatch(/EEXIST|already exists/);
        expect(`${String(run.stdout)}${String(run.stderr)}`).not.toContain(TOKEN);
      }
      expect(existsSync(target)).toBe(false);
    } finally {
      await server.close();
    }
  },
);

test('logout with VREDACT_TOKEN set removes the stored token and warns that the environment one still applies', async () => {
  const env = isolatedEnv(join(work.path, 'logout-env'));
  expect((await runCli(['config', 'set', 'token', '-'], { env, input: TOKEN })).exitCode).toBe(0);
  const withEnv = { ...env, VREDACT_TOKEN: 'vr_from_the_environment_0000cafe' };
  for (const said of ['Token removed from', 'No token was stored.']) {
    const logout = await runCli(['logout'], { env: withEnv });
    expect(logout.exitCode).toBe(0);
    expect(String(logout.stderr)).toContain(said);
    expect(String(logout.stderr)).toContain(
      'warning: VREDACT_TOKEN is set: commands still use its token until it is unset',
    );
    expect(String(logout.stderr)).not.toMatch(/from_the_environment/);
  }
  const quiet = await runCli(['logout'], { env });
  expect(String(quiet.stderr)).not.toMatch(/VREDACT_TOKEN/);
});

test('login against a service that fails (500) says the token was not checked nor stored, exit 1', async () => {
  const server = await startScriptedServer((_req, res) =>
    sendJson(res, 500, { error: 500, message: 'db down' }),
  );
  try {
    const dir = join(work.path, 'login-500');
    const env = isolatedEnv(dir, { VREDACT_BASE_URL: server.baseUrl });
    const login = await runCli(['login', '--token-stdin', '--max-retries', '0'], { env, input: TOKEN });
    expect(login.exitCode).toBe(1);
    expect(String(login.stderr)).toMatch(
      /^error: the token could not be checked, so it was not stored: listing jobs: the service answered 500 Internal Server Error: db down/,
    );
    expect(existsSync(join(dir, 'config.json'))).toBe(false);
  } finally {
    await server.close();
  }
});

test('standard input past 64 KiB (a file piped in by mistake): exit 2 at once, nothing sent or stored', async () => {
  const server = await startScriptedServer((_req, res) => sendJson(res, 200, { jobs: [] }));
  try {
    const dir = join(work.path, 'too-long');
    const env = isolatedEnv(dir, { VREDACT_BASE_URL: server.baseUrl });
    // One line with no break: it passed every check, went out as a 1 MiB Authorization header, and
    // was stored whole by config set.
    const input = `vr_${'a'.repeat(1024 * 1024)}`;
    const runs = [
      await runCli(['config', 'set', 'token', '-'], { env, input }),
      await runCli(['login', '--token-stdin'], { env, input }),
    ];
    for (const run of runs) {
      expect(run.exitCode).toBe(2);
      expect(String(run.stderr)).toMatch(
        /^error: standard input holds more than 64 KiB, where a token is one line of text; nothing was sent or stored/,
      );
      expect(String(run.stderr).length).toBeLessThan(1000);
    }
    expect(server.received).toHaveLength(0);
    expect(existsSync(join(dir, 'config.json'))).toBe(false);
  } finally {
    await server.close();
  }
});

test('a token holding a line break (two lines piped in): exit 2 at once, nothing sent or stored, the token not shown', async () => {
  const server = await startScriptedServer((_req, res) => sendJson(res, 200, { jobs: [] }));
  try {
    const dir = join(work.path, 'two-lines');
    const twoLines = 'vr_test_first_line_0000aaaa\nvr_test_second_line_0000bbbb';
    const env = isolatedEnv(dir, { VREDACT_BASE_URL: server.baseUrl });
    const runs = [
      await runCli(['config', 'set', 'token', '-'], { env, input: `${twoLines}\n` }),
      await runCli(['login', '--token-stdin'], { env, input: twoLines }),
      await runCli(['jobs', 'list'], { env: { ...env, VREDACT_TOKEN: twoLines } }),
    ];
    for (const run of runs) {
      expect(run.exitCode).toBe(2);
      expect(String(run.stderr)).toMatch(/line break/);
      expect(`${String(run.stdout)}${String(run.stderr)}`).not.toMatch(/first_line|second_line/);
    }
    expect(server.received).toHaveLength(0);
    expect(existsSync(join(dir, 'config.json'))).toBe(false);
  } finally {
    await server.close();
  }
});

test('a token no Authorization header can carry (empty, a space or tab, a control character, not ASCII, in quotes) is refused the same way by config set, login, --token and VREDACT_TOKEN: exit 2, one line and a hint, the token never shown', async () => {
  const server = await startScriptedServer((_req, res) => sendJson(res, 200, { jobs: [] }));
  try {
    const dir = join(work.path, 'unsendable');
    const env = isolatedEnv(dir, { VREDACT_BASE_URL: server.baseUrl });
    const bad: Array<[string, RegExp]> = [
      ['', /empty/],
      ['   ', /empty|space/],
      ['vr_secretpart_0000 aaaa', /space/],
      [' vr_secretpart_0000aaaa', /space/],
      ['vr_secretpart_0000\taaaa', /space|tab/],
      ['vr_secretpart_0000\u0007aaaa', /control character/],
      ['vr_secretpart_0000éaaaa', /ASCII/],
      // Copied with its quotes (a `.env` line, JSON): it went out, and every request was refused (403).
      ['"vr_secretpart_0000aaaa"', /quote mark/],
      ["'vr_secretpart_0000aaaa'", /quote mark/],
    ];
    for (const [token, why] of bad) {
      const runs = [
        await runCli(['config', 'set', 'token', token], { env }),
        await runCli(['login', '--token', token], { env }),
        await runCli(['jobs', 'list', '--token', token], { env }),
        ...(token.trim() ? [await runCli(['jobs', 'list'], { env: { ...env, VREDACT_TOKEN: token } })] : []),
      ];
      for (const run of runs) {
        const where = `${run.command}: ${JSON.stringify(token)}`;
        expect(run.exitCode, where).toBe(2);
        const lines = String(run.stderr)
          .split('\n')
          .filter((line) => line && !line.startsWith('warning: --token is visible'));
        expect(lines, where).toHaveLength(2);
        expect(lines[0], where).toMatch(/^error: /);
        expect(lines[0], where).toMatch(why);
        expect(lines[1], where).toMatch(/^hint: /);
        expect(`${String(run.stdout)}${String(run.stderr)}`, where).not.toMatch(/secretpart|0000/);
      }
    }
    expect(server.received).toHaveLength(0);
    expect(existsSync(join(dir, 'config.json'))).toBe(false);
  } finally {
    await server.close();
  }
});
