/**
 * A hostile service that echoes the token encoded (base64, as a debugging page shows a header) and
 * hands out text that is not valid Unicode (lone surrogates, which JSON can carry): no form of the
 * token reaches the user, and no lone surrogate reaches a URL or reaches the terminal unescaped. And
 * a file name a shell expands into the arguments (`vredact redact *`) is escaped in a parse error.
 */
import { copyFile, mkdir, readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { BIN, FIXTURES, isolatedEnv, runCli, tempDirPerTest } from '../helpers/cli.js';
import { runInPty } from '../helpers/pty.js';
import { sendJson, startScriptedServer } from '../helpers/scripted-server.js';

const TOKEN = 'vr_hostile_0123456789abcdef';
const dir = tempDirPerTest('vredact-hostile-encodings-');

/** Every run of 10 of the token's characters, plain or in the output decoded from base64. */
function expectNoTokenPart(text: string): void {
  const decoded = (text.match(/[A-Za-z0-9+/_-]{16,}/g) ?? [])
    .map((word) => Buffer.from(word, 'base64').toString('latin1'))
    .join(' ');
  for (let i = 0; i + 10 <= TOKEN.length; i++) {
    const part = TOKEN.slice(i, i + 10);
    expect(text).not.toContain(part);
    expect(decoded).not.toContain(part);
  }
}

describe('a service that echoes the token base64-encoded', () => {
  test('in a refusal: jobs list and login show it masked, and login stores nothing', async () => {
    const server = await startScriptedServer((req, res) => {
      const header = req.headers.authorization ?? '';
      const echo = `${Buffer.from(`Authorization: ${header}`).toString('base64')} ${Buffer.from(header.slice(7)).toString('base64url')}`;
      sendJson(res, 403, { error: 403, message: `invalid credentials ${echo}` });
    });
    try {
      const env = isolatedEnv(dir.path, { VREDACT_BASE_URL: server.baseUrl, VREDACT_TOKEN: TOKEN });
      const list = await runCli(['jobs', 'list', '--verbose'], { env });
      const listJson = await runCli(['jobs', 'list', '--json'], { env });
      const loginEnv = isolatedEnv(dir.path, { VREDACT_BASE_URL: server.baseUrl });
      const login = await runCli(['login', '--token-stdin', '--verbose'], { env: loginEnv, input: TOKEN });
      for (const run of [list, listJson, login]) {
        expect(run.exitCode).toBe(3);
        expect(String(run.stderr)).toContain('invalid credentials');
        expect(String(run.stderr)).toContain('vr_…cdef');
        expectNoTokenPart(`${String(run.stdout)}${String(run.stderr)}`);
      }
      expect(await readdir(dir.path)).not.toContain('config.json');
    } finally {
      await server.close();
    }
  });
});

describe('text that is not valid Unicode', () => {
  test('jobs list: a job id with a lone surrogate is left out; a date with one (and invisible characters) is shown escaped', async () => {
    const server = await startScriptedServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        '{"jobs":[{"job_id":"x\\ud800y","token":"t","created_at":"2026-11-21T10:00:00Z"},' +
          '{"job_id":"ok","token":"t","created_at":"then\\udc00\\u00ad\\u2062"}]}',
      );
    });
    try {
      const env = isolatedEnv(dir.path, { VREDACT_BASE_URL: server.baseUrl, VREDACT_TOKEN: TOKEN });
      const list = await runCli(['jobs', 'list'], { env });
      expect(list.exitCode).toBe(0);
      expect(String(list.stdout).trim()).toBe('ok\tthen\\udc00\\xad\\u2062\t…');
      expect(String(list.stdout)).not.toContain('\ufffd');
      expect(String(list.stderr)).toContain('left out 1 job(s)');
    } finally {
      await server.close();
    }
  });

  test('jobs list on a terminal: the table shows them escaped, never as U+FFFD or drawn as nothing', async () => {
    const server = await startScriptedServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"jobs":[{"job_id":"ok","token":"t","created_at":"then\\udc00\\u00ad\\u202e\\u001b[2J"}]}');
    });
    const env = isolatedEnv(dir.path, {
      VREDACT_BASE_URL: server.baseUrl,
      VREDACT_TOKEN: TOKEN,
      NO_COLOR: '1',
    });
    const term = runInPty(`node ${BIN} jobs list`, { cwd: dir.path, env, columns: 120 });
    try {
      expect(await term.exited).toBe(0);
      const shown = term.output();
      expect(shown).toContain('then\\udc00\\xad\\u202e\\x1b[2J');
      for (const raw of ['\ufffd', '\u00ad', '\u202e', '\u001b[2J']) expect(shown).not.toContain(raw);
    } finally {
      term.kill();
      await server.close();
    }
  });

  test('redact: a job id with a lone surrogate fails that file, saying why, and is never polled', async () => {
    const server = await startScriptedServer((req, res) => {
      if (req.url === '/api/speech-to-speech-biometric-redaction') {
        res.writeHead(202, { 'content-type': 'application/json' });
        res.end('{"job_id":"ab\\ud800cd"}');
        return;
      }
      sendJson(res, 200, { jobs: [] });
    });
    try {
      const env = isolatedEnv(dir.path, { VREDACT_BASE_URL: server.baseUrl, VREDACT_TOKEN: TOKEN });
      const inputs = join(dir.path, 'in');
      await mkdir(inputs);
      await copyFile(join(FIXTURES, 'speech-16bit.wav'), join(inputs, 'a.wav'));
      const out = join(dir.path, 'out');
      const run = await runCli(['redact', inputs, '-o', out, '--max-retries', '0'], { env });
      expect(run.exitCode).toBe(1);
      const shown = `${String(run.stdout)}${String(run.stderr)}`;
      expect(shown).toContain('ab\\ud800cd');
      expect(shown).toContain('it is not valid Unicode');
      expect(shown).not.toContain('URI malformed');
      expect(shown).not.toContain('\ufffd');
      expect(String(run.stdout)).toMatch(/^failed\t/);
      for (const request of server.received)
        expect(['/api/speech-to-speech-biometric-redaction', '/api/jobs']).toContain(request.url);
      const journal = await readFile(join(out, '.vredact', 'journal.jsonl'), 'utf8');
      expect(journal).not.toContain('"jobId":"ab');
    } finally {
      await server.close();
    }
  });
});

describe('arguments echoed by a parse error', () => {
  test('a file name taken for an option, or a bad choice, is shown escaped (exit 2)', async () => {
    // `vredact redact *` in a folder holding this file: the shell makes it an argument.
    const name = '-\u001b[2J\u202evaw.wav';
    const env = isolatedEnv(dir.path);
    const redact = await runCli(['redact', name, '--dry-run'], { env, cwd: dir.path });
    const config = await runCli(['config', 'get', 'k\u001b]0;owned\u0007\u009b'], { env });
    for (const run of [redact, config]) {
      expect(run.exitCode).toBe(2);
      const stderr = String(run.stderr);
      for (const raw of ['\u001b', '\u0007', '\u009b', '\u202e']) expect(stderr).not.toContain(raw);
    }
    expect(String(redact.stderr)).toContain("unknown option '-\\x1b[2J\\u202evaw.wav'");
    expect(String(config.stderr)).toContain('(got "k\\x1b]0;owned\\x07\\x9b")');
  });
});
