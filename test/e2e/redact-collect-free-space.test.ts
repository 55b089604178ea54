/**
 * `vredact redact` collecting the jobs of an earlier `--no-wait` run onto an output disk too full for
 * their results: their results need room as an upload's do, so nothing is fetched that could not be
 * saved, the jobs stay pending (submitted, with their ids), the batch stops saying how much is free
 * where, a dry run counts them in its warning, and once space is freed the same command collects them.
 * Through the built binary, on a small tmpfs, against a scripted asynchronous service.
 */
import { mkdir, realpath, statfs, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { isolatedEnv, runCli, tempDirPerTest } from '../helpers/cli.js';
import { isWav } from '../helpers/e2e.js';
import { latestEvents } from '../helpers/journal.js';
import { MOUNT_SKIP_REASON, tryMountTmpfs } from '../helpers/mount.js';
import { makeWav } from '../helpers/mp3.js';
import { startScriptedServer } from '../helpers/scripted-server.js';
import { asyncJobRoutes } from '../helpers/async-job-service.js';

const REDACT = '/api/speech-to-speech-biometric-redaction';
const dir = tempDirPerTest('vredact-e2e-collect-space-');
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** A service that answers every upload with a job, finished at once, whose result is 7 s of 16 kHz speech. */
async function asyncService() {
  const server = await startScriptedServer(asyncJobRoutes(() => server.baseUrl));
  const fetches = () =>
    server.received.filter((r) => r.url.endsWith('/files/download-url') || r.url.startsWith('/files/'))
      .length;
  return { server, fetches };
}

/**
 * Three inputs whose jobs a `--no-wait` run submitted, then an output disk left with room for less
 * than one result (the disk of a night that ran full); undefined where no tmpfs can be mounted.
 */
async function jobsOnAFullDisk() {
  // A folder's name may hold an escape sequence: the messages that name it show it escaped.
  const out = join(dir.path, 'out\x1b[2J');
  const mounted = await tryMountTmpfs(out, '2m');
  if (!mounted) return undefined;
  cleanups.push(() => mounted.unmount());
  const { server, fetches } = await asyncService();
  cleanups.push(() => server.close());
  await mkdir(join(dir.path, 'in'));
  for (const name of ['a', 'b', 'c']) await writeFile(join(dir.path, 'in', `${name}.wav`), makeWav(7));
  const env = isolatedEnv(join(dir.path, 'config'), {
    VREDACT_BASE_URL: server.baseUrl,
    VREDACT_TOKEN: 'vr_test_collect_space',
  });
  const run = (...extra: string[]) => runCli(['redact', 'in', '-o', out, ...extra], { cwd: dir.path, env });

  const submitted = await run('--no-wait');
  expect(submitted.exitCode).toBe(0);
  expect(await latestEvents(out)).toEqual(ALL_SUBMITTED);
  expect(fetches()).toBe(0);
  const info = await statfs(out);
  await writeFile(join(out, 'other-data.bin'), Buffer.alloc(info.bavail * info.bsize - 150 * 1024, 1));
  return { out, shown: out.replace('\x1b', '\\x1b'), mounted, server, fetches, env, run };
}

const ALL_SUBMITTED = { 'a.wav': 'submitted', 'b.wav': 'submitted', 'c.wav': 'submitted' };

describe('vredact redact: the jobs of an earlier run, on an output disk too full for their results', () => {
  it('fetches nothing that could not be saved, keeps the jobs pending and stops; once space is freed they are collected', async ({
    skip,
  }) => {
    const setUp = await jobsOnAFullDisk();
    if (!setUp) return skip(MOUNT_SKIP_REASON);
    const { out, shown, mounted, server, fetches, env, run } = setUp;

    const full = await run();
    expect(full.exitCode).toBe(1);
    expect(fetches()).toBe(0);
    expect(full.stderr).toMatch(
      new RegExp(
        `error: the batch stopped: not enough free space for the next result: ${escapeRegExp(shown)} has [\\d.]+ KiB free, in/[abc]\\.wav needs about 283 KiB, and 1 MiB is kept free`,
      ),
    );
    expect(full.stderr).toContain(`hint: free some space on ${shown}, then run the same command again`);
    expect(full.stderr).not.toContain('\x1b');
    expect(full.stderr).not.toMatch(/no space left/);
    // Each job stays with its file, to be collected: never failed, never sent again.
    const pendingLine = (name: string) =>
      expect.stringMatching(
        new RegExp(
          `^pending\\tin/${name}\\.wav\\t.*not enough free space for the results; job job-\\d is collected by a later run`,
        ),
      );
    // The stop ends the deciding: a file not yet decided when it came (the three are decided as their
    // looks end, in any order) has no line, and is counted undecided; its job stays all the same.
    const lines = String(full.stdout).split('\n').filter(Boolean).sort();
    const named = lines.map((line) => /^pending\tin\/([abc])\.wav\t/.exec(line)?.[1] ?? line);
    expect(lines.length).toBeGreaterThan(0);
    expect(lines).toEqual(named.map(pendingLine));
    const undecided = 3 - lines.length;
    expect(full.stderr).toContain(
      `redacted 0, skipped 0 (already done), rejected 0, failed 0, pending ${lines.length}${undecided > 0 ? `, undecided ${undecided} (the batch stopped)` : ''}`,
    );
    expect(await latestEvents(out)).toEqual(ALL_SUBMITTED);
    const status = await runCli(['status', '-o', out], { env });
    const inputs = await realpath(join(dir.path, 'in'));
    expect(status.stderr).toContain('0 done, 3 pending, 0 failed, 0 rejected');
    const rows = String(status.stdout)
      .split('\n')
      .map((row) => row.split('\t').slice(0, 4));
    expect(rows).toEqual(
      ['a', 'b', 'c'].map((name) => [
        'pending',
        join(inputs, `${name}.wav`),
        'submitted; the next run collects its job',
        expect.stringMatching(/^job-[123]$/),
      ]),
    );
    // The uploads go at once, so which job is whose follows their arrival: each its own.
    expect(new Set(rows.map((row) => row[3])).size).toBe(3);

    await mounted.resize('8m');
    const again = await run();
    expect(again.exitCode).toBe(0);
    expect(server.received.filter((r) => r.url === REDACT)).toHaveLength(3);
    expect(await latestEvents(out)).toEqual({ 'a.wav': 'done', 'b.wav': 'done', 'c.wav': 'done' });
    for (const name of ['a', 'b', 'c']) expect(await isWav(join(out, `${name}.wav`))).toBe(true);
  });

  it('a dry run counts the results it would collect in its free-space warning, without the network', async ({
    skip,
  }) => {
    const setUp = await jobsOnAFullDisk();
    if (!setUp) return skip(MOUNT_SKIP_REASON);
    const { shown, server, run } = setUp;
    const requestsBefore = server.received.length;

    const dry = await run('--dry-run');
    expect(dry.exitCode).toBe(0);
    expect(dry.stderr).toMatch(
      new RegExp(
        `warning: not enough free space for the results: ${escapeRegExp(shown)} has [\\d.]+ KiB free, the results of the 3 job\\(s\\) that would be collected need about 848 KiB, and 1 MiB is kept free`,
      ),
    );
    expect(dry.stderr).toContain(`free some space on ${shown} before the run`);
    expect(server.received).toHaveLength(requestsBefore);
  });
});
