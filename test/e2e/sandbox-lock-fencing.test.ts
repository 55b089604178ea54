/**
 * A sandbox paused past its lease (SIGSTOP, a frozen VM) whose data folder another sandbox took over
 * meanwhile, through the built binary with a real SIGSTOP and SIGCONT: once resumed, it stops serving
 * with one line on stderr and exits 1, and leaves the folder and its lock to the other, which goes on.
 */
import { readFile, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDirPerTest } from '../helpers/cli.js';
import { until } from '../helpers/e2e.js';
import { processState } from '../helpers/process-state.js';
import { ANOTHER_PID_NAMESPACE } from '../helpers/process-space.js';
import { type SandboxProcess, startSandboxProcess } from '../helpers/sandbox.js';

/** The first sandbox's refresh (test-only knob): it checks its lock this often once resumed. */
const REFRESH_MS = 200;
const dir = tempDirPerTest('vredact-sandbox-fencing-');

const jobsOf = (sandbox: SandboxProcess) =>
  fetch(`${sandbox.baseUrl}/api/jobs`, { headers: { authorization: `Bearer ${sandbox.token}` } });

describe('a sandbox whose data folder was taken over while it was paused', () => {
  it('stops serving once resumed, with one line on stderr, exits 1, and the other sandbox goes on', async () => {
    const data = join(dir.path, 'data');
    const lock = join(data, 'sandbox.lock');
    const first = await startSandboxProcess(['--data-dir', data], {
      env: { VREDACT_TEST_LOCK_REFRESH_MS: String(REFRESH_MS) },
    });
    const pid = first.process.pid!;
    let second: SandboxProcess | undefined;
    try {
      first.process.kill('SIGSTOP');
      await until(async () => (await processState(pid)) === 'T');
      // As another container sees the first's lock (its pid means nothing there), unrefreshed for
      // an hour: past its lease.
      const owner = JSON.parse(await readFile(lock, 'utf8')) as Record<string, unknown>;
      await writeFile(lock, `${JSON.stringify({ ...owner, pidNamespace: ANOTHER_PID_NAMESPACE })}\n`);
      const anHourAgo = new Date(Date.now() - 3_600_000);
      await utimes(lock, anHourAgo, anHourAgo);

      second = await startSandboxProcess(['--data-dir', data]);
      const theirs = await readFile(lock, 'utf8');
      expect(JSON.parse(theirs)).toMatchObject({ pid: second.process.pid });

      first.process.kill('SIGCONT');
      let exited = false;
      void first.process.then(() => (exited = true));
      await until(async () => exited).catch((error: unknown) => {
        throw new Error(`${String(error)}\n${first.errors()}`);
      });
      const result = await first.process;
      expect(result.exitCode, first.errors()).toBe(1);
      expect(first.errors()).toMatch(
        new RegExp(
          `^error: another sandbox took the data folder ${data} over \\(pid ${second.process.pid} on [^)]*, started [^)]*\\) while this one went \\d+ (s|min) without refreshing its lock \\(was this machine suspended, or the process stopped\\?\\); this one stops: use the other one, or give this one another --data-dir\\n$`,
        ),
      );
      await expect(jobsOf(first)).rejects.toThrow();

      // The other sandbox goes on serving, on the folder and the lock it took over.
      const created = await fetch(`${second.baseUrl}/api/jobs`, {
        method: 'POST',
        headers: { authorization: `Bearer ${second.token}` },
      });
      expect(created.status).toBe(201);
      const listed = await jobsOf(second);
      expect(listed.status).toBe(200);
      expect(await readFile(lock, 'utf8')).toBe(theirs);
      await second.stop();
      expect((await second.process).exitCode).toBe(130);
    } finally {
      if ((await processState(pid)) !== '') first.process.kill('SIGCONT');
      await first.stop();
      await second?.stop();
    }
  }, 60_000);
});
