/**
 * A run paused past its lease (a suspended VM, a laptop asleep, SIGSTOP) whose lock another host's
 * run took over meanwhile, through the built binary with a real SIGSTOP and SIGCONT: once resumed, it
 * sends nothing more, writes nothing more to the journal, leaves the other run's lock as it is, and
 * exits 1 saying who took the lock over.
 */
import { readFile, rename, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { isolatedEnv, runCli, tempDirPerTest } from '../helpers/cli.js';
import { jsonLines, listFiles, until } from '../helpers/e2e.js';
import { processState } from '../helpers/process-state.js';
import { type HoldingService, holdingService, uploads } from '../helpers/holding-service.js';
import { speechInputs } from '../helpers/speech-files.js';

const TOKEN = 'vr_fencing_0123456789abcdef';
const FILES = 6;
/** The lease is 20 refreshes: 4 s here, against 10 min by default (test-only knob). */
const REFRESH_MS = 200;
const dir = tempDirPerTest('vredact-fencing-');

/**
 * What another host's run does to a lock whose lease lapsed (as acquireLock does): the old lock
 * moved aside and removed, its own created in its place.
 */
async function takeOver(lock: string, owner: Record<string, unknown>, mtime: Date): Promise<string> {
  const aside = `${lock}.taken`;
  await rename(lock, aside);
  await rm(aside);
  const text = `${JSON.stringify(owner)}\n`;
  await writeFile(lock, text, { mode: 0o600 });
  await utimes(lock, mtime, mtime);
  return text;
}

/** How many `uploading` lines the journal has (none while it does not exist yet). */
async function journaledUploads(journal: string): Promise<number> {
  const text = await readFile(journal, 'utf8').catch(() => '');
  return jsonLines(text.slice(0, text.lastIndexOf('\n') + 1)).filter((line) => line.event === 'uploading')
    .length;
}

let service: HoldingService | undefined;
afterEach(async () => {
  service?.release();
  await service?.server.close();
  service = undefined;
});

describe('a run whose lock was taken over while it was paused', () => {
  it('sends nothing more once resumed, writes nothing more to the journal, leaves the new lock, and exits 1', async () => {
    service = await holdingService();
    await speechInputs(dir.path, FILES);
    const out = join(dir.path, 'out');
    const lock = join(out, '.vredact', 'lock');
    const journal = join(out, '.vredact', 'journal.jsonl');
    const run = runCli(['redact', 'in', '-o', 'out', '-c', '1', '--json'], {
      cwd: dir.path,
      env: isolatedEnv(join(dir.path, '.config'), {
        VREDACT_BASE_URL: service.server.baseUrl,
        VREDACT_TOKEN: TOKEN,
        VREDACT_TEST_LOCK_REFRESH_MS: String(REFRESH_MS),
      }),
    });
    const pid = run.pid!;
    try {
      // One upload in flight (held by the service), and every other file checked and journaled ahead
      // (the queue to the upload slots holds them all): a pause before the last of those lines, between
      // its lock's check and its write, would write it after the takeover, as any write in flight would.
      await until(async () => uploads(service!.server) === 1 && (await journaledUploads(journal)) === FILES);
      run.kill('SIGSTOP');
      await until(async () => (await processState(pid)) === 'T');
      const journalBefore = await readFile(journal, 'utf8');

      // Another host's run finds the lock unrefreshed past its lease and takes it over.
      const taken = new Date(Date.now() - 1_000);
      const owner = {
        pid: 4242,
        hostname: 'pod-b-7f9c2',
        startedAt: new Date().toISOString(),
        id: '00112233445566ff',
        refreshMs: 30_000,
      };
      const theirs = await takeOver(lock, owner, taken);
      const theirTime = (await stat(lock)).mtimeMs;
      // Paused for longer than the run lets pass between two checks of its lock (set-up, not asserted).
      await new Promise((resolve) => setTimeout(resolve, 20 * REFRESH_MS));
      run.kill('SIGCONT');
      service.release();
      const result = await run;

      expect(result.exitCode, String(result.stderr)).toBe(1);
      expect(String(result.stderr)).toMatch(
        /^error: the batch stopped: the lock of the output folder .*out was taken over by another run \(pid 4242 on pod-b-7f9c2, at .*\) while this run went \d+ s without refreshing it \(was this machine suspended/m,
      );
      expect(String(result.stderr)).toMatch(/^hint: nothing to do: that run goes on with the batch/m);
      expect(uploads(service.server)).toBe(1);
      expect(await readFile(journal, 'utf8')).toBe(journalBefore);
      expect(await readFile(lock, 'utf8')).toBe(theirs);
      expect((await stat(lock)).mtimeMs).toBe(theirTime);
      expect((await listFiles(out)).filter((name) => name.endsWith('.wav'))).toEqual([]);
      expect(jsonLines(result.stdout).at(-1)).toMatchObject({
        summary: { done: 0, failed: 0, pending: FILES },
      });
    } finally {
      if ((await processState(pid)) !== '') {
        run.kill('SIGCONT');
        run.kill('SIGKILL');
      }
      await run.catch(() => {});
    }
  }, 60_000);
});
