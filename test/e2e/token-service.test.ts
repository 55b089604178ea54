/**
 * The config file's token goes only to the config file's service: a `--base-url` or
 * VREDACT_BASE_URL naming another service is refused before any request, unless the token comes
 * with it; `login` to another service makes that one the config file's.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { expect, test } from 'vitest';
import { isolatedEnv, runCli, tempDirPerTest } from '../helpers/cli.js';
import { type ScriptedServer, sendJson, startScriptedServer } from '../helpers/scripted-server.js';

const STORED = 'vr_stored_for_service_a_0123456789';
const OTHER = 'vr_given_for_service_b_9876543210';
const work = tempDirPerTest('vredact-token-service-');

/** Two services, each listing no jobs, and a config file holding service A's URL and token. */
async function twoServices(): Promise<{ a: ScriptedServer; b: ScriptedServer; env: NodeJS.ProcessEnv }> {
  const a = await startScriptedServer((_req, res) => sendJson(res, 200, { jobs: [] }));
  const b = await startScriptedServer((_req, res) => sendJson(res, 200, { jobs: [] }));
  const env = isolatedEnv(join(work.path, 'cfg'));
  expect((await runCli(['config', 'set', 'base-url', a.baseUrl], { env })).exitCode).toBe(0);
  expect((await runCli(['config', 'set', 'token', '-'], { env, input: STORED })).exitCode).toBe(0);
  return { a, b, env };
}

const authorizations = (server: ScriptedServer) =>
  server.received.map((request) => request.headers.authorization);

test("the stored token is never sent to a --base-url or VREDACT_BASE_URL that is not the config file's", async () => {
  const { a, b, env } = await twoServices();
  try {
    const byFlag = await runCli(['jobs', 'list', '--base-url', b.baseUrl], { env });
    const byEnv = await runCli(['jobs', 'list'], { env: { ...env, VREDACT_BASE_URL: `${b.baseUrl}/` } });
    for (const [run, from] of [
      [byFlag, '--base-url'],
      [byEnv, 'VREDACT_BASE_URL'],
    ] as const) {
      expect(run.exitCode).toBe(2);
      expect(String(run.stderr)).toContain(
        `error: the stored token is for ${a.baseUrl} (the config file's base-url), not for ${b.baseUrl} (from ${from}), and is not sent there`,
      );
      expect(String(run.stderr)).toContain('hint: give that service');
      expect(String(run.stderr)).not.toContain(STORED);
    }
    expect(b.received).toEqual([]);

    // The config file's own service, however written, and a token given with the URL, go through.
    const same = await runCli(['jobs', 'list', '--base-url', `${a.baseUrl}/`], { env });
    const given = await runCli(['jobs', 'list', '--base-url', b.baseUrl], {
      env: { ...env, VREDACT_TOKEN: OTHER },
    });
    expect([same.exitCode, given.exitCode]).toEqual([0, 0]);
    expect(authorizations(a)).toEqual([`Bearer ${STORED}`]);
    expect(authorizations(b)).toEqual([`Bearer ${OTHER}`]);
  } finally {
    await a.close();
    await b.close();
  }
});

test('login to another service stores its URL with its token: the next run sends that token there alone', async () => {
  const { a, b, env } = await twoServices();
  try {
    const login = await runCli(['login', '--token-stdin', '--base-url', b.baseUrl], { env, input: OTHER });
    expect(login.exitCode).toBe(0);
    expect(String(login.stderr)).toContain(
      `base-url set to ${b.baseUrl} in the config file (it was ${a.baseUrl}): the stored token is for it`,
    );
    const config = JSON.parse(await readFile(join(work.path, 'cfg', 'config.json'), 'utf8')) as unknown;
    expect(config).toEqual({ 'base-url': b.baseUrl, token: OTHER });
    expect((await runCli(['jobs', 'list'], { env })).exitCode).toBe(0);
    expect(a.received).toEqual([]);
    expect(authorizations(b)).toEqual([`Bearer ${OTHER}`, `Bearer ${OTHER}`]);
  } finally {
    await a.close();
    await b.close();
  }
});

test('login with the service URL from the environment alone binds the token to it: another URL later is refused, not sent it', async () => {
  const a = await startScriptedServer((_req, res) => sendJson(res, 200, { jobs: [] }));
  const b = await startScriptedServer((_req, res) => sendJson(res, 200, { jobs: [] }));
  try {
    const env = isolatedEnv(join(work.path, 'cfg'));
    const login = await runCli(['login', '--token-stdin'], {
      env: { ...env, VREDACT_BASE_URL: a.baseUrl },
      input: STORED,
    });
    expect(login.exitCode).toBe(0);
    expect(String(login.stderr)).toContain(
      `base-url set to ${a.baseUrl} in the config file (it had none): the stored token is for it`,
    );
    const config = JSON.parse(await readFile(join(work.path, 'cfg', 'config.json'), 'utf8')) as unknown;
    expect(config).toEqual({ 'base-url': a.baseUrl, token: STORED });

    const elsewhere = await runCli(['jobs', 'list', '--base-url', b.baseUrl], { env });
    expect(elsewhere.exitCode).toBe(2);
    expect(b.received).toEqual([]);
    expect((await runCli(['jobs', 'list'], { env })).exitCode).toBe(0);
    expect(authorizations(a)).toEqual([`Bearer ${STORED}`, `Bearer ${STORED}`]);
  } finally {
    await a.close();
    await b.close();
  }
});
