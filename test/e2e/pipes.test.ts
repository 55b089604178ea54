/**
 * A closed stdout (`| head -1`) in a real shell pipeline: the run ends quietly, as a first interrupt.
 */
import { existsSync } from 'node:fs';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterEach, describe, expect, it } from 'vitest';
import { BIN, runCli } from '../helpers/cli.js';
import { type E2E, runIntoGoneReader, setup } from '../helpers/e2e.js';

let e2e: E2E | undefined;
afterEach(async () => {
  await e2e?.cleanup();
  e2e = undefined;
});

/** Runs `vredact <args> | head -1` in bash; returns vredact's exit code, head's output and stderr. */
async function intoHead(env: E2E, args: string): Promise<{ code: number; stdout: string; stderr: string }> {
  const result = await execa('bash', ['-c', `node ${BIN} ${args} | head -1; exit "\${PIPESTATUS[0]}"`], {
    cwd: env.dir,
    env: env.env,
    extendEnv: false,
    stdin: 'ignore',
    reject: false,
  });
  return { code: result.exitCode ?? -1, stdout: result.stdout, stderr: result.stderr };
}

const STACK = /^\s+at |EPIPE|Error: write|Unhandled/m;

describe('a closed stdout', () => {
  it('`redact … | head -1` stops like a first interrupt: no stack trace, no lock, in flight recorded, nothing sent twice', async () => {
    e2e = await setup(['--latency', '300']);
    for (let i = 0; i < 16; i++) {
      await e2e.fixture('speech-16bit.wav', `in/call-${String(i).padStart(2, '0')}.wav`);
    }
    const result = await intoHead(e2e, 'redact in -c 2 -o out');
    expect(result.stdout).toMatch(/^done\tin\/call-\d\d\.wav\tout\/call-\d\d\.wav$/);
    expect(result.code).toBe(130);
    expect(result.stderr).not.toMatch(STACK);
    expect(result.stderr).toMatch(
      /^the output was closed: (no upload in flight; exiting|finishing the (upload|\d uploads) in flight, then exiting)$/m,
    );
    expect(result.stderr).toMatch(
      /^error: interrupted: run the same command again to send the files not yet done and collect the pending jobs \(what is done is skipped\)$/m,
    );

    const out = join(e2e.dir, 'out');
    expect(existsSync(join(out, '.vredact', 'lock'))).toBe(false);
    const last = new Map<string, string>();
    const journal = await readFile(join(out, '.vredact', 'journal.jsonl'), 'utf8');
    for (const line of journal.split('\n').filter(Boolean)) {
      const record = JSON.parse(line) as { input: string; event: string };
      last.set(record.input, record.event);
    }
    expect([...last.values()]).not.toContain('uploading');
    const done = [...last.values()].filter((event) => event === 'done').length;
    expect(done).toBeLessThan(16);
    expect((await e2e.sandbox.stats()).uploads).toBe(done);

    const rerun = await runCli(['redact', 'in', '-c', '4', '-o', 'out'], { env: e2e.env, cwd: e2e.dir });
    expect(rerun.exitCode).toBe(0);
    expect((await e2e.sandbox.stats()).uploads).toBe(16);
    expect((await readdir(out)).filter((name) => name.endsWith('.wav'))).toHaveLength(16);
  });

  it('`jobs list | head -1` ends quietly, even with more output than a pipe holds', async () => {
    e2e = await setup();
    const sandbox = e2e.sandbox;
    // About 110 kB of lines: more than a pipe's 64 kB buffer, so writes go on after head has left.
    const create = () =>
      fetch(`${sandbox.baseUrl}/api/jobs`, {
        method: 'POST',
        headers: { authorization: `Bearer ${sandbox.token}` },
      }).then((response) => response.arrayBuffer());
    for (let batch = 0; batch < 30; batch++) await Promise.all(Array.from({ length: 50 }, create));
    const result = await intoHead(e2e, 'jobs list --all');
    expect(result.stdout.split('\n')).toHaveLength(1);
    expect(result.stdout).toMatch(/^\S+\t\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\t/);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
  });

  it('`redact --dry-run` into a reader that has gone stops: exit 130, no word of uploads, nothing written', async () => {
    e2e = await setup();
    for (let i = 0; i < 200; i++)
      await e2e.fixture('speech-16bit.wav', `in/call-${String(i).padStart(3, '0')}.wav`);
    const result = await runIntoGoneReader(['redact', '--dry-run', 'in', '-o', 'out'], {
      cwd: e2e.dir,
      env: e2e.env,
    });
    expect(result.exitCode).toBe(130);
    expect(result.stderr).toMatch(/^the output was closed: stopping$/m);
    expect(result.stderr).not.toMatch(/upload/);
    expect(result.stderr).not.toMatch(STACK);
    expect(existsSync(join(e2e.dir, 'out'))).toBe(false);
  });

  it.each(['--help', 'redact --help', 'help exit-codes', 'completion bash', '--version'])(
    '`vredact %s` into a reader that has gone ends quietly: exit 0, no stack trace',
    async (line) => {
      const result = await runIntoGoneReader(line.split(' '));
      expect(result.stderr).not.toMatch(STACK);
      expect(result.exitCode).toBe(0);
    },
  );

  it('--stats prints plain progress lines on stderr of a run that is not on a terminal (a cron log)', async () => {
    // Three uploads one at a time, each answered after a second: the run outlasts the interval.
    e2e = await setup(['--latency', '1000']);
    for (let i = 0; i < 3; i++) await e2e.fixture('speech-16bit.wav', `in/call-${i}.wav`);
    const result = await runCli(['redact', 'in', '-c', '1', '-o', 'out', '--stats', '500ms', '-q'], {
      env: e2e.env,
      cwd: e2e.dir,
    });
    expect(result.exitCode).toBe(0);
    expect(result.stderr).toMatch(/^redacting [0-3]\/3 · (1 in flight · )?[^\n]*elapsed · ETA [-:\d]+$/m);
    expect(result.stderr).not.toMatch(/\u001b|\r/);
    expect(result.stdout).toBe('');
  });

  it('--stats longer than a timer can hold (30d) prints no line in a short run, and no warning of Node.js', async () => {
    e2e = await setup(['--latency', '300']);
    for (let i = 0; i < 3; i++) await e2e.fixture('speech-16bit.wav', `in/call-${i}.wav`);
    const result = await runCli(['redact', 'in', '-c', '1', '-o', 'out', '--stats', '30d', '-q'], {
      env: e2e.env,
      cwd: e2e.dir,
    });
    expect(result.exitCode).toBe(0);
    expect(result.stderr).toBe('redacted 3, skipped 0 (already done), rejected 0, failed 0, pending 0');
  });

  it('--quiet --stats (the cron recipe): the log ends with the counts of the run, every night; --quiet alone prints none', async () => {
    e2e = await setup();
    for (let i = 0; i < 2; i++) await e2e.fixture('speech-16bit.wav', `in/call-${i}.wav`);
    await writeFile(join(e2e.dir, 'in', 'broken.wav'), 'not audio');
    const night = ['redact', 'in', '-o', 'out', '--quiet', '--stats', '1h'];
    const first = await runCli(night, { env: e2e.env, cwd: e2e.dir });
    expect(first.exitCode).toBe(1);
    expect(first.stdout).toBe('rejected\tin/broken.wav\tnot a WAV or MP3 file');
    expect(first.stderr).toBe('redacted 2, skipped 0 (already done), rejected 1, failed 0, pending 0');
    expect((await e2e.sandbox.stats()).uploads).toBe(2);

    const second = await runCli(night, { env: e2e.env, cwd: e2e.dir });
    expect(second.exitCode).toBe(1);
    expect(second.stderr).toBe('redacted 0, skipped 2 (already done), rejected 1, failed 0, pending 0');

    const quietOnly = await runCli(['redact', 'in', '-o', 'out', '--quiet'], { env: e2e.env, cwd: e2e.dir });
    expect(quietOnly.exitCode).toBe(1);
    expect(quietOnly.stderr).toBe('');
    expect((await e2e.sandbox.stats()).uploads).toBe(2);
  });
});
