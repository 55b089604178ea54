/**
 * A command whose work stalls (it awaits a promise nothing will settle) must not exit 0: Node.js ends
 * the process when nothing is left to wait on, with code 0, and cron would take that for done.
 */
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { isolatedEnv, REPO_ROOT, tempDirPerTest } from '../helpers/cli.js';

const dir = tempDirPerTest('vredact-action-');

/** Runs, in a child, a command through action() whose work is `work` (JavaScript). */
function runAction(work: string) {
  const action = pathToFileURL(join(REPO_ROOT, 'dist', 'cli', 'action.js')).href;
  const script = `
    const { action } = await import(${JSON.stringify(action)});
    const command = { optsWithGlobals: () => ({}), processedArgs: [] };
    await action(async () => async () => ${work})(command);
  `;
  return execa('node', ['--input-type=module', '-e', script], {
    reject: false,
    extendEnv: false,
    env: isolatedEnv(dir.path),
  });
}

describe('action', () => {
  it('a command left waiting on nothing says so and exits 1', async () => {
    const run = await runAction('new Promise(() => {})');
    expect(run.exitCode).toBe(1);
    expect(run.stderr).toMatch(/^error: vredact stopped before its work was finished/);
    expect(run.stderr).toMatch(/hint: run the same command again/);
  });

  it('a command that finishes exits with its code and says nothing more', async () => {
    const run = await runAction('3');
    expect(run.exitCode).toBe(3);
    expect(run.stderr).toBe('');
  });
});
