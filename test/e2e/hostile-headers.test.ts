/**
 * A hostile service that echoes the token in its answers' headers rather than their bodies: errors
 * quote some header values (an unknown Content-Encoding, a result's Content-Type), and none of the
 * token, whole or in part, may reach stdout, stderr or the journal through them.
 */
import { copyFile, mkdir, readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { FIXTURES, isolatedEnv, runCli, tempDirPerTest } from '../helpers/cli.js';
import { startScriptedServer } from '../helpers/scripted-server.js';

const TOKEN = 'vr_hostile_0123456789abcdef';

const dir = tempDirPerTest('vredact-hostile-headers-');

/** No run of 10 characters of the token, in any case. */
function expectNoPart(text: string, where = ''): void {
  for (let i = 0; i + 10 <= TOKEN.length; i++)
    expect(text.toLowerCase(), where).not.toContain(TOKEN.slice(i, i + 10).toLowerCase());
}

/** The text of every file under `root`. */
async function allFiles(root: string): Promise<{ path: string; text: string }[]> {
  const out: { path: string; text: string }[] = [];
  for (const entry of await readdir(root, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile()) continue;
    const path = join(entry.parentPath, entry.name);
    out.push({ path, text: await readFile(path, 'latin1') });
  }
  return out;
}

/** The token the request carried, as a server that echoes it reads it. */
function sentToken(authorization: string | undefined): string {
  return (authorization ?? '').replace(/^Bearer /, '');
}

/** A folder of one short WAV, an output folder beside it and the environment that sends it to `baseUrl`. */
async function oneInputFor(
  baseUrl: string,
): Promise<{ env: NodeJS.ProcessEnv; inputs: string; out: string }> {
  const env = isolatedEnv(dir.path, { VREDACT_BASE_URL: baseUrl, VREDACT_TOKEN: TOKEN });
  const inputs = join(dir.path, 'in');
  await mkdir(inputs);
  await copyFile(join(FIXTURES, 'speech-16bit.wav'), join(inputs, 'a.wav'));
  return { env, inputs, out: join(dir.path, 'out') };
}

describe('a service that echoes the token in a header', () => {
  test('an unknown Content-Encoding naming part of the token: the error shows it masked (jobs list, --json, -v)', async () => {
    const server = await startScriptedServer((req, res) => {
      res.writeHead(200, {
        'content-type': 'application/json',
        'content-encoding': `x-${sentToken(req.headers.authorization).slice(0, 16)}`,
      });
      res.end('{"jobs": []}');
    });
    try {
      const env = isolatedEnv(dir.path, { VREDACT_BASE_URL: server.baseUrl, VREDACT_TOKEN: TOKEN });
      for (const flags of [[], ['--json'], ['--verbose']]) {
        const run = await runCli(['jobs', 'list', '--max-retries', '0', ...flags], { env });
        expect(run.exitCode).toBe(1);
        expect(String(run.stderr)).toContain('came with Content-Encoding "x-vr_…cdef"');
        expectNoPart(`${String(run.stdout)}${String(run.stderr)}`);
      }
    } finally {
      await server.close();
    }
  });

  test("a result's Content-Type naming the token: its line, --json and the journal show it masked", async () => {
    const server = await startScriptedServer((req, res) => {
      res.writeHead(200, { 'content-type': `audio/x-${sentToken(req.headers.authorization)}` });
      res.end('not a wav file at all');
    });
    try {
      const { env, inputs, out } = await oneInputFor(server.baseUrl);
      const plain = await runCli(['redact', inputs, '-o', out, '--max-retries', '0'], { env });
      const json = await runCli(['redact', inputs, '-o', out, '--max-retries', '0', '--json'], { env });
      for (const run of [plain, json]) {
        expect(run.exitCode).toBe(1);
        expectNoPart(`${String(run.stdout)}${String(run.stderr)}`);
      }
      expect(String(plain.stdout)).toContain("the service's result (audio/x-vr_…cdef) is not");
      const files = await allFiles(out);
      expect(files.map((file) => file.path)).toContain(join(out, '.vredact', 'journal.jsonl'));
      for (const file of files) expectNoPart(file.text, file.path);
    } finally {
      await server.close();
    }
  });

  test("a result's Content-Type with a C1 control and 8,000 characters: escaped and cut in its line and the journal", async () => {
    // \x9b (CSI) is a byte a header may carry; a terminal reads it as the start of an escape sequence.
    const type = `audio/x-\x9b31m${'a'.repeat(8000)}`;
    const server = await startScriptedServer((_req, res) => {
      res.writeHead(200, [['content-type', type]]);
      res.end('not a wav file at all');
    });
    try {
      const { env, inputs, out } = await oneInputFor(server.baseUrl);
      const run = await runCli(['redact', inputs, '-o', out, '--max-retries', '0'], { env });
      expect(run.exitCode).toBe(1);
      expect(String(run.stdout)).toContain("the service's result (audio/x-\\x9b31maaa");
      const journal = await readFile(join(out, '.vredact', 'journal.jsonl'), 'utf8');
      const failed = journal
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as { event: string; reason?: string })
        .find((record) => record.event === 'failed');
      expect(failed?.reason).toMatch(
        /^the service's result \(audio\/x-\\x9b31ma+… \(\d+ more characters\)\) is not/,
      );
      expect(failed?.reason).not.toContain('\u009b');
      expect(failed?.reason?.length).toBeLessThan(300);
      expect(String(run.stdout)).not.toContain('\u009b');
      expect(String(run.stdout).length).toBeLessThan(1000);
    } finally {
      await server.close();
    }
  });
});
