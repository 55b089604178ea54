/**
 * The folders `vredact sandbox --data-dir` makes go through the folder maker every other folder of
 * vredact goes through (src/fs/make-folder.ts): private (0700, as a temporary data folder is), each
 * flushed into its parent, and a path whose file system answers ENOENT under an existing folder
 * ends in an error rather than Node.js's recursive mkdir looping for ever.
 */
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { isolatedEnv, runCli, tempDir } from '../helpers/cli.js';
import { startSandboxProcess } from '../helpers/sandbox.js';

const modeOf = async (path: string): Promise<number> => (await stat(path)).mode & 0o777;

describe('vredact sandbox --data-dir: the folders it makes', () => {
  test('a missing data folder, the folders above it, tmp, jobs and each job folder are made 0700', async () => {
    const dir = await tempDir();
    const data = join(dir.path, 'made', 'data');
    const sandbox = await startSandboxProcess(['--data-dir', data]);
    try {
      const answer = await fetch(`${sandbox.baseUrl}/api/jobs`, {
        method: 'POST',
        headers: { authorization: `Bearer ${sandbox.token}` },
      });
      expect(answer.status).toBe(201);
      const { job_id: jobId } = (await answer.json()) as { job_id: string };
      const made = [
        join(dir.path, 'made'),
        data,
        join(data, 'tmp'),
        join(data, 'jobs'),
        join(data, 'jobs', jobId),
      ];
      expect(await Promise.all(made.map(modeOf))).toEqual(made.map(() => 0o700));
    } finally {
      await sandbox.stop();
      await dir.cleanup();
    }
  });

  test('a data folder under one whose file system refuses new folders (/proc) is a usage error, not a hang', async () => {
    const dir = await tempDir();
    try {
      // Node.js's recursive mkdir loops for ever on this path; the timeout only guards the suite.
      const result = await runCli(['sandbox', '--port', '0', '--data-dir', '/proc/vredact-none/data'], {
        env: isolatedEnv(dir.path),
        timeout: 60_000,
      });
      expect(result.timedOut).toBe(false);
      expect(result.exitCode).toBe(2);
      expect(result.stderr).toMatch(/^error: --data-dir \/proc\/vredact-none\/data: /);
      expect(result.stdout).toBe('');
    } finally {
      await dir.cleanup();
    }
  });
});
