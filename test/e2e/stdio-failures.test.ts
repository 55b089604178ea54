/**
 * What a script sees when vredact's own streams fail under it: a full stdout (`> /dev/full`), a
 * closed or full stderr, an empty or closed stdin. Run through the built binary with the redirection
 * made by a real shell.
 */
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN } from '../helpers/cli.js';
import { type E2E, isWav, runIntoGoneReader, setup } from '../helpers/e2e.js';
import { latestEvents } from '../helpers/journal.js';

const STACK = /^\s+at |Error: write|Unhandled|node:internal/m;
const FULL_STDOUT =
  /^error: could not write to stdout: no space left on the device \(ENOSPC\); what was printed there is incomplete: make room there or send stdout elsewhere, and run the same command again$/m;

/** `vredact <args>` with stdout, stderr or stdin redirected by bash (`> /dev/full`, `2>&-`, `<&-`). */
function inShell(e2e: E2E, redirection: string, args: string[]) {
  return execa('bash', ['-c', `exec node "$0" "$@" ${redirection}`, BIN, ...args], {
    cwd: e2e.dir,
    env: e2e.env,
    extendEnv: false,
    stdin: 'ignore',
    reject: false,
    // A guard against a hang, not an assertion: every run here ends in a second or two.
    timeout: 60_000,
  });
}

let e2e: E2E;
beforeAll(async () => {
  e2e = await setup();
  for (let i = 0; i < 3; i++) await e2e.fixture('speech-16bit.wav', `in/call-${i}.wav`);
  const first = await e2e.redact(['in', '-o', 'done']);
  expect(first.exitCode).toBe(0);
});
afterAll(async () => {
  await e2e?.cleanup();
});

describe('a full stdout (> /dev/full)', () => {
  it.each([
    ['status --manifest -o done'],
    ['status -o done --json'],
    ['jobs list --json'],
    ['config list'],
    ['completion bash'],
    ['help exit-codes'],
    ['--help'],
    ['--version'],
  ])('`vredact %s` exits 1 with one line saying the output was lost, no stack trace', async (line) => {
    const result = await inShell(e2e, '> /dev/full', line.split(' '));
    expect(result.stderr).toMatch(FULL_STDOUT);
    expect(result.stderr).not.toMatch(STACK);
    expect(result.exitCode).toBe(1);
  });

  it.each(['--json', '--no-progress'])(
    '`redact %s` finishes the run, every output and journal line right, then exits 1 and says so once',
    async (flag) => {
      const out = `full${flag}`;
      const before = (await e2e.sandbox.stats()).uploads;
      const result = await inShell(e2e, '> /dev/full', ['redact', 'in', '-c', '1', '-o', out, flag]);
      expect(result.stderr).not.toMatch(STACK);
      expect(result.stderr.match(new RegExp(FULL_STDOUT.source, 'gm'))).toHaveLength(1);
      expect(result.stderr).not.toMatch(/interrupted/);
      expect(result.exitCode).toBe(1);

      expect((await e2e.sandbox.stats()).uploads - before).toBe(3);
      const dir = join(e2e.dir, out);
      expect(await latestEvents(dir)).toEqual({
        'call-0.wav': 'done',
        'call-1.wav': 'done',
        'call-2.wav': 'done',
      });
      const wavs = (await readdir(dir)).filter((name) => !name.startsWith('.'));
      expect(wavs.sort()).toEqual(['call-0.wav', 'call-1.wav', 'call-2.wav']);
      for (const name of wavs) expect(await isWav(join(dir, name))).toBe(true);

      // Nothing is sent twice: the run again into a stdout with room lists every file skipped.
      const again = await e2e.redact(['in', '-o', out]);
      expect(again.exitCode).toBe(0);
      expect((await e2e.sandbox.stats()).uploads - before).toBe(3);
    },
  );
});

describe('a reader that has gone before the first write', () => {
  it.each([['status --manifest -o done'], ['config list'], ['jobs list --json']])(
    '`vredact %s` ends quietly: exit 0, nothing on stderr',
    async (line) => {
      const result = await runIntoGoneReader(line.split(' '), { cwd: e2e.dir, env: e2e.env });
      expect(result.stderr).toBe('');
      expect(result.exitCode).toBe(0);
    },
  );
});

describe('a closed or full stderr during a run', () => {
  it.each(['2>&-', '2>/dev/full'])(
    '`redact … %s` finishes as it would have: its lines on stdout, every output and journal line, exit 0',
    async (redirection) => {
      const out = redirection === '2>&-' ? 'no-stderr' : 'full-stderr';
      const before = (await e2e.sandbox.stats()).uploads;
      const result = await inShell(e2e, redirection, ['redact', 'in', '-c', '2', '-o', out]);
      expect(result.exitCode).toBe(0);
      expect(result.stderr).toBe('');
      expect(result.stdout.split('\n').sort()).toEqual([
        `done\tin/call-0.wav\t${out}/call-0.wav`,
        `done\tin/call-1.wav\t${out}/call-1.wav`,
        `done\tin/call-2.wav\t${out}/call-2.wav`,
      ]);
      expect((await e2e.sandbox.stats()).uploads - before).toBe(3);
      expect(Object.values(await latestEvents(join(e2e.dir, out)))).toEqual(['done', 'done', 'done']);
      for (let i = 0; i < 3; i++) expect(await isWav(join(e2e.dir, out, `call-${i}.wav`))).toBe(true);
    },
  );

  it('a failing run with no stderr still exits with its own code', async () => {
    const result = await inShell(e2e, '2>&-', ['redact', 'in', '-o', 'done', '-c', 'many']);
    expect(result.exitCode).toBe(2);
    expect(result.stdout).toBe('');
  });
});

describe('an empty or closed stdin', () => {
  it.each([
    ['login', '</dev/null', 2, /^error: standard input is not a terminal\nhint: .*--token-stdin/],
    ['login', '<&-', 2, /^error: standard input is not a terminal\nhint: .*--token-stdin/],
    ['login --token-stdin', '</dev/null', 2, /^error: no token was given\nhint: /],
    ['login --token-stdin', '<&-', 2, /^error: no token was given\nhint: /],
    ['config set token -', '<&-', 2, /^error: an empty value for token\nhint: /],
    ['redact --files-from - -o none', '<&-', 0, /^nothing to do: no input files$/],
  ])(
    '`vredact %s %s` says so in one line and its hint, and ends (exit %i)',
    async (line, redirection, code, said) => {
      const result = await inShell(e2e, redirection, line.split(' '));
      expect(result.timedOut).toBe(false);
      expect(result.stderr).toMatch(said);
      expect(result.stderr.split('\n').length).toBeLessThanOrEqual(2);
      expect(result.exitCode).toBe(code);
    },
  );
});
