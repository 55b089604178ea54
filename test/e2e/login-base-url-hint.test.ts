/**
 * `vredact login` against something that is not the service (every path answered 404, as a web
 * server at a wrong URL does), through the built binary: its hint names where the base URL came from.
 * Before, it always said to check `vredact config get base-url`, though a URL given with --base-url
 * or VREDACT_BASE_URL is not the config file's, and `config set` would not change it.
 */
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { isolatedEnv, runCli, tempDirPerTest } from '../helpers/cli.js';
import { startScriptedServer, type ScriptedServer } from '../helpers/scripted-server.js';

const TOKEN = 'vr_login_hint_0123456789abcdef';
const ERROR =
  'error: the token could not be checked, so it was not stored: listing jobs: the service answered 404 Not Found';
const dir = tempDirPerTest('vredact-login-hint-');

let server: ScriptedServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** A server that answers 404 to everything, and the environment of a run with its config in the test's folder. */
async function wrongHost() {
  server = await startScriptedServer((_req, res) => {
    res.writeHead(404, { 'content-type': 'text/html' });
    res.end('<html>Not Found</html>');
  });
  const config = join(dir.path, '.config');
  return { url: server.baseUrl, config, env: isolatedEnv(config) };
}

/** `login --token-stdin` against the wrong host, with the flags and environment given for its URL. */
async function loginWith(args: (url: string) => string[], extraEnv: (url: string) => Record<string, string>) {
  const { url, config, env } = await wrongHost();
  const result = await runCli(['login', '--token-stdin', '--max-retries', '0', ...args(url)], {
    env: { ...env, ...extraEnv(url) },
    input: `${TOKEN}\n`,
  });
  return { result, config, lines: String(result.stderr).trimEnd().split('\n') };
}

/** Nothing of the token was stored. */
async function tokenNotStored(config: string): Promise<void> {
  const file = join(config, 'config.json');
  if (existsSync(file)) expect(await readFile(file, 'utf8')).not.toContain(TOKEN);
}

describe("login meets something that is not the service: the hint names the base URL's source", () => {
  it('--base-url: the hint names the flag', async () => {
    const { result, config, lines } = await loginWith(
      (url) => ['--base-url', url],
      () => ({}),
    );
    expect(result.exitCode, String(result.stderr)).toBe(1);
    expect(lines).toEqual([
      ERROR,
      'hint: check that the base URL points at the service: the URL given with --base-url',
    ]);
    expect(server?.received.map((request) => request.url)).toEqual(['/api/jobs']);
    await tokenNotStored(config);
  });

  it('VREDACT_BASE_URL: the hint names the environment variable', async () => {
    const { result, config, lines } = await loginWith(
      () => [],
      (url) => ({ VREDACT_BASE_URL: url }),
    );
    expect(result.exitCode, String(result.stderr)).toBe(1);
    expect(lines).toEqual([
      ERROR,
      'hint: check that the base URL points at the service: the URL set in VREDACT_BASE_URL',
    ]);
    await tokenNotStored(config);
  });

  it('the config file: the hint still sends the user to `vredact config get base-url`', async () => {
    const { url, config, env } = await wrongHost();
    const set = await runCli(['config', 'set', 'base-url', url], { env });
    expect(set.exitCode, String(set.stderr)).toBe(0);
    const result = await runCli(['login', '--token-stdin', '--max-retries', '0'], {
      env,
      input: `${TOKEN}\n`,
    });
    expect(result.exitCode, String(result.stderr)).toBe(1);
    expect(String(result.stderr).trimEnd().split('\n')).toEqual([
      ERROR,
      'hint: check that the base URL points at the service: `vredact config get base-url`',
    ]);
    await tokenNotStored(config);
  });
});
