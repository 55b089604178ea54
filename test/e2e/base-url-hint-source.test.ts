/**
 * `redact` and `jobs list` against something that is not the service (every path answered 404 with
 * an HTML page, as a web server at a wrong URL does), through the built binary: each hint to check the
 * base URL names where it came from. Before, only `login` did (by rewriting the words of hints built
 * elsewhere); every other command sent the user to `vredact config get base-url`, though a URL given
 * with --base-url or VREDACT_BASE_URL is not the config file's, and `config set` would not change it.
 */
import { copyFile, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { fixture, isolatedEnv, runCli, tempDirPerTest } from '../helpers/cli.js';
import {
  type ScriptedHandler,
  type ScriptedServer,
  sendJson,
  startScriptedServer,
} from '../helpers/scripted-server.js';

const TOKEN = 'vr_url_hint_0123456789abcdef';
const dir = tempDirPerTest('vredact-url-hint-');

let server: ScriptedServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** Where the base URL is set in each case, and the words its hints must use for it. */
const CASES = [
  { source: '--base-url', pointer: 'the URL given with --base-url' },
  { source: 'VREDACT_BASE_URL', pointer: 'the URL set in VREDACT_BASE_URL' },
  { source: 'the config file', pointer: '`vredact config get base-url`' },
] as const;
type Source = (typeof CASES)[number]['source'];

/** A wrong host, and the arguments and environment of a run whose base URL comes from `source`. */
async function wrongHostFrom(
  source: Source,
  handler: ScriptedHandler = (_req, res) => {
    res.writeHead(404, { 'content-type': 'text/html' });
    res.end('<html><body>Not Found</body></html>');
  },
): Promise<{ args: string[]; env: NodeJS.ProcessEnv }> {
  server = await startScriptedServer(handler);
  const url = server.baseUrl;
  const env = isolatedEnv(join(dir.path, 'config'), { VREDACT_TOKEN: TOKEN });
  if (source === '--base-url') return { args: ['--base-url', url], env };
  if (source === 'VREDACT_BASE_URL') return { args: [], env: { ...env, VREDACT_BASE_URL: url } };
  const set = await runCli(['config', 'set', 'base-url', url], { env });
  expect(set.exitCode, String(set.stderr)).toBe(0);
  return { args: [], env };
}

describe.each(CASES)('the base URL from $source: its hints name where it is set', ({ source, pointer }) => {
  it('jobs list', async () => {
    const { args, env } = await wrongHostFrom(source);
    const result = await runCli(['jobs', 'list', '--max-retries', '0', ...args], { env });
    expect(result.exitCode, String(result.stderr)).toBe(1);
    expect(String(result.stderr).trimEnd().split('\n')).toEqual([
      'error: listing jobs: the service answered 404 Not Found',
      `hint: check that the base URL points at the service: ${pointer}`,
    ]);
    expect(server?.received.map((request) => request.url)).toEqual(['/api/jobs']);
  });

  it('jobs create: a new job id that fails the check', async () => {
    const { args, env } = await wrongHostFrom(source, (_req, res) => sendJson(res, 201, { job_id: '../x' }));
    const result = await runCli(['jobs', 'create', '--max-retries', '0', ...args], { env });
    expect(result.exitCode, String(result.stderr)).toBe(1);
    expect(String(result.stdout)).toBe('');
    const lines = String(result.stderr).trimEnd().split('\n');
    expect(lines[0]).toMatch(
      /^error: creating a job: the service gave the job id "\.\.\/x", which cannot be used/,
    );
    expect(lines.slice(1)).toEqual([
      `hint: check that the base URL points at the service (${pointer}); if it does, report this answer to the service's operators`,
    ]);
  });

  it('redact: each failure and the batch stop', async () => {
    const { args, env } = await wrongHostFrom(source);
    const input = join(dir.path, 'in');
    await mkdir(input);
    for (const name of ['a.wav', 'b.wav', 'c.wav', 'd.wav'])
      await copyFile(fixture('speech-16bit.wav'), join(input, name));
    const out = join(dir.path, 'out');
    const result = await runCli(['redact', input, '-o', out, '-c', '1', '--max-retries', '0', ...args], {
      env,
      cwd: dir.path,
    });
    expect(result.exitCode, String(result.stderr)).toBe(1);
    const failed = String(result.stdout)
      .split('\n')
      .filter((line) => line.startsWith('failed\t'));
    expect(failed).toHaveLength(3);
    for (const line of failed)
      expect(line).toMatch(
        new RegExp(
          `the service answered 404 Not Found; check that the base URL points at the service: ${escape(pointer)}$`,
        ),
      );
    const stderr = String(result.stderr);
    expect(stderr).toContain('error: the batch stopped: 3 uploads in a row were answered by something');
    expect(stderr).toContain(
      `hint: check that the base URL points at the Voice Redaction Service (${pointer}`,
    );
    if (source !== 'the config file') expect(stderr).not.toContain('config get base-url');
    // Three uploads reached the wrong host, and the fourth file was not sent.
    expect(server?.received.filter((request) => request.method === 'POST')).toHaveLength(3);
  });
});

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
