/**
 * The sweep of leftover temporary files, `download` and `redact` alike, when another process space
 * (another container with our host name, another NFS host) writes into the same folder: a pid of
 * theirs says nothing here, so their fresh files are left alone, and only files untouched for longer
 * than the lock's lease are taken for a dead run's.
 */
import { mkdir, readdir, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { isolatedEnv, runCli, tempDirPerTest } from '../helpers/cli.js';
import { setup } from '../helpers/e2e.js';
import { startFileHost } from '../helpers/file-host.js';
import { makeWav } from '../helpers/mp3.js';
import { resultWav } from '../helpers/result-wav.js';
import { ANOTHER_CONTAINERS_SPACE_TAG, OUR_SPACE_TAG, temporaryNameOf } from '../helpers/process-space.js';

const dir = tempDirPerTest('vredact-e2e-temp-spaces-');
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A pid no process of this machine has (Linux's go up to 4,194,304): a run elsewhere may have it. */
const PID_DEAD_HERE = 2 ** 30;
/** Older than the lock's 10-min lease: a writer anywhere would have touched it since. */
const AN_HOUR_AGO = new Date(Date.now() - 3_600_000);

/** The name a vredact run writing without a mark of its process space gives (any version before). */
const unmarked = (pid: number, hex: string) => `.v.${pid}-${hex.repeat(16)}.vredact-partial`;

const partialsIn = async (folder: string) =>
  (await readdir(folder)).filter((name) => name.endsWith('.vredact-partial')).sort();

async function plant(folder: string, name: string, old = false): Promise<void> {
  await mkdir(folder, { recursive: true });
  await writeFile(join(folder, name), 'being written by a run elsewhere');
  if (old) await utimes(join(folder, name), AN_HOUR_AGO, AN_HOUR_AGO);
}

describe('temporary files of other process spaces', () => {
  it('download leaves fresh temporary files it cannot judge, and sweeps those untouched past the lease', async () => {
    const out = join(dir.path, 'out');
    const kept = [
      // Another container's download, its pid dead here (or alive here, another process): fresh.
      temporaryNameOf(PID_DEAD_HERE, ANOTHER_CONTAINERS_SPACE_TAG, 'a'),
      temporaryNameOf(process.pid, ANOTHER_CONTAINERS_SPACE_TAG, 'b'),
      // An earlier version's, which does not say its space: anyone's, wherever the folder is shared.
      unmarked(PID_DEAD_HERE, 'c'),
      // One of this space whose writer (this test) runs.
      temporaryNameOf(process.pid, OUR_SPACE_TAG, 'd'),
    ];
    for (const name of kept) await plant(out, name);
    await plant(out, temporaryNameOf(PID_DEAD_HERE, ANOTHER_CONTAINERS_SPACE_TAG, 'e'), true);
    await plant(out, unmarked(PID_DEAD_HERE, 'f'), true);
    // One of this space whose writer died: gone, fresh as it is, as before.
    await plant(out, temporaryNameOf(PID_DEAD_HERE, OUR_SPACE_TAG, '0'));
    const server = await startFileHost({ 'a.wav': resultWav(10, 1) });
    cleanups.push(() => server.close());
    const env = isolatedEnv(join(dir.path, 'config'), {
      VREDACT_BASE_URL: server.baseUrl,
      VREDACT_TOKEN: 'vr_test_temp_spaces',
    });
    const result = await runCli(['download', 'job1', 'a.wav', '-o', out], { env });
    expect(result.exitCode, String(result.stderr)).toBe(0);
    expect(await partialsIn(out)).toEqual([...kept].sort());
    expect(String(result.stderr)).toMatch(/removed 3 partial file/);
  });

  it('redact without a shard leaves fresh ones beside the outputs and in .vredact/, and sweeps stale ones', async () => {
    const t = await setup();
    cleanups.push(() => t.cleanup());
    await mkdir(join(t.dir, 'in', 'sub'), { recursive: true });
    await writeFile(join(t.dir, 'in', 'a.wav'), makeWav(0.5));
    await writeFile(join(t.dir, 'in', 'sub', 'b.wav'), makeWav(0.5));
    const folders = [join(t.dir, 'out'), join(t.dir, 'out', 'sub'), join(t.dir, 'out', '.vredact')];
    const kept = [
      temporaryNameOf(PID_DEAD_HERE, ANOTHER_CONTAINERS_SPACE_TAG, 'a'),
      temporaryNameOf(process.pid, ANOTHER_CONTAINERS_SPACE_TAG, 'b'),
      unmarked(PID_DEAD_HERE, 'c'),
    ];
    for (const folder of folders) {
      for (const name of kept) await plant(folder, name);
      await plant(folder, unmarked(PID_DEAD_HERE, 'd'), true);
      await plant(folder, temporaryNameOf(PID_DEAD_HERE, ANOTHER_CONTAINERS_SPACE_TAG, 'e'), true);
      await plant(folder, temporaryNameOf(PID_DEAD_HERE, OUR_SPACE_TAG, 'f'));
    }
    const result = await t.redact(['in', '-o', 'out']);
    expect(result.exitCode, String(result.stderr)).toBe(0);
    for (const folder of folders) expect(await partialsIn(folder), folder).toEqual([...kept].sort());
  });
});
