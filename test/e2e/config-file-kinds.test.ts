/**
 * A config file that is no regular file: every command reads it, so one that blocked or never ended
 * would hold every command, a cron job's too.
 */
import { mkdir, symlink, truncate, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { isolatedEnv, runCli, tempDirPerTest } from '../helpers/cli.js';

const work = tempDirPerTest('vredact-config-kinds-');

/** A run that never ends is ended (SIGKILL: a blocked open ignores the rest), and the test fails. */
const ENDED_AFTER_MS = 30_000;

async function configOf(name: string, make: (path: string) => Promise<unknown>) {
  const folder = join(work.path, name);
  await mkdir(folder);
  const path = join(folder, 'config.json');
  await make(path);
  const run = await runCli(['config', 'get', 'concurrency'], {
    env: isolatedEnv(folder),
    timeout: ENDED_AFTER_MS,
    killSignal: 'SIGKILL',
  });
  return { path, run };
}

describe.skipIf(process.platform === 'win32')('a config file that is no regular file', () => {
  it('a FIFO is refused at once, exit 2, as not a regular file (it held the command for ever)', async () => {
    const { path, run } = await configOf('fifo', (at) => execa('mkfifo', [at]));
    expect(run.timedOut).toBe(false);
    expect(run.exitCode).toBe(2);
    expect(String(run.stderr)).toContain(`cannot read the config file ${path}: it is not a regular file`);
  });

  it("a user's own link to a device (/dev/zero) is refused, not read until the memory is full", async () => {
    const { path, run } = await configOf('device', (at) => symlink('/dev/zero', at));
    expect(run.timedOut).toBe(false);
    expect(run.exitCode).toBe(2);
    expect(String(run.stderr)).toContain(`cannot read the config file ${path}: it is not a regular file`);
  });

  it('a file far larger than any config is refused by its size, unread', async () => {
    const { path, run } = await configOf('huge', async (at) => {
      await writeFile(at, '{}');
      await truncate(at, 3 * 1024 * 1024 * 1024);
    });
    expect(run.timedOut).toBe(false);
    expect(run.exitCode).toBe(2);
    expect(String(run.stderr)).toContain(`cannot read the config file ${path}: it is 3221225472 bytes`);
  });
});
