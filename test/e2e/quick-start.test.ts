/**
 * A new user's first steps, through the built binary at a real terminal (tmux): the README's quick
 * start typed as written, and the first mistakes (no service URL, an output folder that is a file).
 */
import { cp, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { BIN, FIXTURES, isolatedEnv, runCli, tempDirPerTest } from '../helpers/cli.js';
import { binDir, readmeBlock } from '../helpers/readme.js';
import { startSandboxProcess } from '../helpers/sandbox.js';
import { hasTmux, startTmux, type TmuxTerminal } from '../helpers/tmux.js';

const work = tempDirPerTest('vredact-quick-start-');
let term: TmuxTerminal | undefined;
afterEach(async () => {
  await term?.kill();
  term = undefined;
});

/** The rows as the README shows them: a run's duration is the one part that differs from run to run. */
const withoutDuration = (rows: readonly string[]) =>
  rows.map((row) => row.replace(/ · \d+:\d\d$/, ' · 0:00'));

describe.skipIf(!hasTmux)('at a terminal', () => {
  test("the README's quick start against the sandbox shows what the README shows, and none of the sandbox's log", async () => {
    const block = await readmeBlock('sh', 'vredact sandbox --port 8787');
    const shown = (await readmeBlock('text', '✖ redacted')).trimEnd().split('\n');
    await cp(FIXTURES, join(work.path, 'fixtures'), { recursive: true });
    const script = block
      // Port 8787 may be taken on a shared machine, and a loaded one may start the sandbox in more
      // than the README's second: the one change, then, is to wait for its export lines.
      .replace('--port 8787', '--port 0')
      .replace(/^sleep 1 && /m, 'until grep -q VREDACT_TOKEN sandbox.env; do sleep 0.1; done; ');
    term = await startTmux(`${script}\nkill %1 2>/dev/null; wait`, {
      cwd: work.path,
      env: { ...isolatedEnv(join(work.path, 'cfg')), PATH: `${await binDir(work.path)}:${process.env.PATH}` },
      // The width the README shows it at.
      columns: 120,
      rows: 30,
      timeoutMs: 90_000,
    });
    await term.exited();
    const rows = withoutDuration(await term.rows());
    // The sandbox, started in the background, logged each request on the terminal, between the live
    // line's redraws.
    expect(rows.filter((row) => /(GET|POST) \/api\//.test(row))).toEqual([]);
    expect(rows).toEqual(expect.arrayContaining(withoutDuration(shown)));
    // "No jobs." came with the frame of an empty table.
    expect(rows.join('\n')).not.toMatch(/JOB ID|┌/);
  }, 120_000);

  test('login with no service URL says so before asking for the token', async () => {
    term = await startTmux(`node ${BIN} login`, { cwd: work.path, env: isolatedEnv(join(work.path, 'cfg')) });
    // It asked for the token, and only once it was pasted said there was no service to check it with.
    expect(await term.exited()).toBe(2);
    const rows = (await term.rows()).join('\n');
    expect(rows).toMatch(/^error: no service URL is set$/m);
    expect(rows).not.toContain('Paste your usage token');
  });

  test('jobs list and jobs content with nothing to list: one line saying so, no empty table', async () => {
    const sandbox = await startSandboxProcess();
    try {
      const env = isolatedEnv(join(work.path, 'cfg'), {
        VREDACT_BASE_URL: sandbox.baseUrl,
        VREDACT_TOKEN: sandbox.token,
      });
      term = await startTmux(
        `node ${BIN} jobs list && job=$(node ${BIN} jobs create) && node ${BIN} jobs content "$job"`,
        { cwd: work.path, env },
      );
      expect(await term.exited()).toBe(0);
      const rows = await term.rows();
      expect(rows).toContain('No jobs.');
      expect(rows.some((row) => /^Job \S+ has no files yet\.$/.test(row))).toBe(true);
      expect(rows.join('\n')).not.toMatch(/JOB ID|FILE NAME|[┌└│]/);
    } finally {
      await sandbox.stop();
    }
  });
});

test('an output folder that is a file: the hint says to move it or choose another folder, not to fix permissions', async () => {
  const sandbox = await startSandboxProcess();
  try {
    const env = isolatedEnv(join(work.path, 'cfg'), {
      VREDACT_BASE_URL: sandbox.baseUrl,
      VREDACT_TOKEN: sandbox.token,
    });
    const file = join(work.path, 'notes');
    await writeFile(file, 'not a folder');
    for (const args of [
      ['redact', join(FIXTURES, 'speech-16bit.wav'), '-o', file],
      ['download', 'job1', '-o', file],
    ]) {
      const result = await runCli(args, { env, cwd: work.path });
      expect(result.exitCode).toBe(2);
      expect(String(result.stderr).split('\n').slice(0, 2)).toEqual([
        `error: cannot create the output folder ${file}: it is not a folder`,
        'hint: move or rename it, or choose another output folder (-o)',
      ]);
    }
    expect((await sandbox.stats()).uploads).toBe(0);
  } finally {
    await sandbox.stop();
  }
});
