/**
 * `vredact download` on an output disk too full for the job's files: a file that cannot fit beside
 * those on their way (and the 1 MiB kept free) is not requested at all when the listing gives its
 * duration, and not written when its announced length does not fit; downloads stop there, nothing
 * partial is left, and the same command run after space is freed fetches the rest. Through the built
 * binary, on a small tmpfs, against a file host that counts what it is asked for.
 */
import { readdir, statfs, writeFile } from 'node:fs/promises';
import type { ServerResponse } from 'node:http';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { isolatedEnv, runCli, tempDirPerTest } from '../helpers/cli.js';
import { type FileServer, startFileHost } from '../helpers/file-host.js';
import { MOUNT_SKIP_REASON, tryMountTmpfs } from '../helpers/mount.js';
import { makeWav } from '../helpers/mp3.js';
import { layoutWav } from '../helpers/result-wav.js';
import { expectFileBytes } from '../helpers/same-bytes.js';

const dir = tempDirPerTest('vredact-e2e-download-space-');
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const MiB = 1024 * 1024;
/** What a 7 s result is expected to take (16 kHz 16-bit mono, plus 64 KiB): the rule `redact` uses. */
const NEED_7S = 7 * 32_000 + 64 * 1024;
/** 7 s of 16 kHz mono, 16-bit: 224 KB, what the service returns for a 7 s recording. */
const RESULT = makeWav(7, 16_000);
const NAMES = ['a.wav', 'b.wav', 'c.wav'];

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

async function mount(size: string) {
  // A folder's name may hold an escape sequence: the messages that name it show it escaped.
  const mounted = await tryMountTmpfs(join(dir.path, 'out\x1b[2J'), size);
  if (mounted) cleanups.push(() => mounted.unmount());
  return mounted;
}

/** Leaves `bytes` free on the file system of `folder`, filling the rest with another program's data. */
async function leaveFree(folder: string, bytes: number): Promise<void> {
  const info = await statfs(folder);
  await writeFile(join(folder, 'other-data.bin'), Buffer.alloc(info.bavail * info.bsize - bytes, 1));
}

/**
 * A small file system of `size` with `free` bytes left free: its path, and the path as vredact shows it
 * (a mount folder's name may hold an escape); undefined where no file system can be mounted.
 */
async function nearlyFull(size: string, free: number) {
  const mounted = await mount(size);
  if (!mounted) return undefined;
  await leaveFree(mounted.path, free);
  return { mounted, out: mounted.path, shown: mounted.path.replace('\x1b', '\\x1b') };
}

async function host(serveFile?: FileServer, durations: Record<string, number> = { a: 7, b: 7, c: 7 }) {
  const files = Object.fromEntries(NAMES.map((name) => [name, RESULT]));
  const listed = Object.fromEntries(Object.entries(durations).map(([stem, sec]) => [`${stem}.wav`, sec]));
  const server = await startFileHost(files, serveFile, false, listed);
  cleanups.push(() => server.close());
  const env = isolatedEnv(join(dir.path, 'config'), {
    VREDACT_BASE_URL: server.baseUrl,
    VREDACT_TOKEN: 'vr_test_download_space',
  });
  const urlRequests = () => server.received.filter((r) => r.url.endsWith('/files/download-url')).length;
  const fileGets = () => NAMES.reduce((sum, name) => sum + server.fileGets(name), 0);
  return { server, env, urlRequests, fileGets };
}

describe('vredact download: an output disk too full for the files', () => {
  it('requests nothing that cannot fit, says how much is free and what to do; after space is freed the same command fetches them', async ({
    skip,
  }) => {
    const disk = await nearlyFull('2m', 150 * 1024);
    if (!disk) return skip(MOUNT_SKIP_REASON);
    const { out, shown } = disk;
    const { env, urlRequests, fileGets } = await host();

    const full = await runCli(['download', 'job1', '-o', out], { env });
    expect(full.exitCode).toBe(1);
    expect(urlRequests()).toBe(0);
    expect(fileGets()).toBe(0);
    expect(full.stdout).toBe('');
    expect(full.stderr).toMatch(
      new RegExp(
        `error: [abc]\\.wav: not enough free space for the next file: ${escapeRegExp(shown)} has [\\d.]+ KiB free, [abc]\\.wav needs about 283 KiB, and 1 MiB is kept free`,
      ),
    );
    expect(full.stderr).toMatch(/stopped: not enough free space: 2 file\(s\) not started/);
    expect(full.stderr).toContain(
      `hint: free some space on ${shown}, or download into another folder (-o), then run the same command again`,
    );
    expect(full.stderr).not.toContain('\x1b');
    expect(full.stderr).not.toMatch(/no space left/);
    // Nothing partial: only what was there before.
    expect(await readdir(out)).toEqual(['other-data.bin']);

    await disk.mounted.resize('8m');
    const again = await runCli(['download', 'job1', '-o', out], { env });
    expect(again.exitCode).toBe(0);
    expect(fileGets()).toBe(3);
    for (const name of NAMES) await expectFileBytes(join(out, name), RESULT);
  });

  it('--json: the file that did not fit is failed, those after it pending, "not started", as the summary counts them', async ({
    skip,
  }) => {
    const disk = await nearlyFull('2m', 150 * 1024);
    if (!disk) return skip(MOUNT_SKIP_REASON);
    const { env, fileGets } = await host();

    const full = await runCli(['download', 'job1', '-o', disk.out, '--json'], { env });
    expect(full.exitCode).toBe(1);
    expect(fileGets()).toBe(0);
    const outcomes = JSON.parse(String(full.stdout)) as Array<Record<string, unknown>>;
    const states = outcomes.map(({ status, reason }) => `${String(status)}: ${String(reason)}`).sort();
    expect(states).toEqual([
      expect.stringMatching(/^failed: not enough free space for the next file: /),
      'pending: not started: downloads stopped: not enough free space',
      'pending: not started: downloads stopped: not enough free space',
    ]);
    expect(full.stderr).toMatch(/stopped: not enough free space: 2 file\(s\) not started/);

    const human = await runCli(['download', 'job1', '-o', disk.out], { env });
    expect(human.exitCode).toBe(1);
    expect(human.stderr).toMatch(/^0 downloaded, 0 skipped, 1 failed, 2 pending \(not started\)$/m);
  });

  it('counts the files on their way: with room for two, two are fetched whole and the third is not requested', async ({
    skip,
  }) => {
    const disk = await nearlyFull('4m', MiB + Math.round(2.5 * NEED_7S));
    if (!disk) return skip(MOUNT_SKIP_REASON);
    const { out } = disk;
    // Each file is held until two are asked for: each of the three is checked while two are on their way.
    // (A third one asked for is served at once: the test must end, however it goes.)
    const held: ServerResponse[] = [];
    let released = false;
    const serve = (res: ServerResponse) => {
      res.writeHead(200, { 'content-type': 'audio/wav', 'content-length': String(RESULT.length) });
      res.end(RESULT);
    };
    const { env, urlRequests, fileGets } = await host((_name, res) => {
      held.push(res);
      if (released || held.length >= 2) {
        released = true;
        for (const waiting of held.splice(0)) serve(waiting);
      }
    });

    const result = await runCli(['download', 'job1', '-o', out, '-c', '3'], { env });
    expect(result.exitCode).toBe(1);
    expect(urlRequests()).toBe(2);
    expect(fileGets()).toBe(2);
    expect(result.stderr).toMatch(
      /not enough free space for the next file: .* needs about 283 KiB, beside about 566 KiB for the 2 file\(s\) on their way, and 1 MiB is kept free/,
    );
    const saved = (await readdir(out)).filter((name) => name !== 'other-data.bin').sort();
    expect(saved).toHaveLength(2);
    for (const name of saved) await expectFileBytes(join(out, name), RESULT);
    const { shown } = disk;
    expect(String(result.stdout).trim().split('\n').sort()).toEqual(saved.map((name) => join(shown, name)));
  });

  it('a file whose announced length does not fit is not written, and nothing new is requested', async ({
    skip,
  }) => {
    const disk = await nearlyFull('2m', MiB + 100 * 1024);
    if (!disk) return skip(MOUNT_SKIP_REASON);
    const { out, shown } = disk;
    // No durations listed: the length the file is announced at is all there is to go by.
    const { env, urlRequests, fileGets } = await host(undefined, {});

    const result = await runCli(['download', 'job1', '-o', out, '-c', '1'], { env });
    expect(result.exitCode).toBe(1);
    expect(urlRequests()).toBe(1);
    expect(fileGets()).toBe(1);
    expect(result.stderr).toMatch(
      new RegExp(
        `error: a\\.wav: not enough free space for the next file: ${escapeRegExp(shown)} has [\\d.]+ [KM]iB free, a\\.wav needs about 219 KiB, and 1 MiB is kept free`,
      ),
    );
    expect(result.stderr).toMatch(/stopped: not enough free space: 2 file\(s\) not started/);
    expect(result.stderr).not.toMatch(/no space left/);
    expect(await readdir(out)).toEqual(['other-data.bin']);
  });

  it('a file of no listed duration and no announced length stops short of the reserve, not at a full disk', async ({
    skip,
  }) => {
    const disk = await nearlyFull('16m', 4 * MiB);
    if (!disk) return skip(MOUNT_SKIP_REASON);
    const { out, shown } = disk;
    // A whole 12 MiB WAV, sent chunked: nothing tells its size before its bytes come.
    const big = layoutWav({ sampleRate: 96_000, channels: 2, bits: 24 }, 22);
    const sendChunked: FileServer = async (_name, res) => {
      res.writeHead(200, { 'content-type': 'audio/wav' });
      for (let at = 0; at < big.length && !res.destroyed; at += 256 * 1024) {
        if (!res.write(big.subarray(at, at + 256 * 1024)))
          await new Promise((resolve) => {
            res.once('drain', resolve);
            res.once('close', resolve);
          });
      }
      res.end();
    };
    const { env, fileGets } = await host(sendChunked, {});

    const result = await runCli(['download', 'job1', '-o', out, '-c', '1'], { env });
    expect(result.exitCode).toBe(1);
    expect(fileGets()).toBe(1);
    expect(result.stderr).toMatch(
      new RegExp(
        `error: a\\.wav: not enough free space for the next file: ${escapeRegExp(shown)} has [\\d.]+ [KM]iB free, the rest of a\\.wav needs about [\\d.]+ MiB, and 1 MiB is kept free`,
      ),
    );
    expect(result.stderr).toMatch(/stopped: not enough free space: 2 file\(s\) not started/);
    expect(result.stderr).not.toMatch(/no space left/);
    expect(await readdir(out)).toEqual(['other-data.bin']);
  });

  it('a file announced past any cap fails alone as too large: its announced length claims no room, and the others are fetched', async ({
    skip,
  }) => {
    const disk = await nearlyFull('4m', 2 * MiB);
    if (!disk) return skip(MOUNT_SKIP_REASON);
    const { out } = disk;
    // 10 GB announced, no WAV header: past the least rate's hour, though within the highest rate's.
    const lying: FileServer = (name, res) => {
      if (name !== 'a.wav') {
        res.writeHead(200, { 'content-type': 'audio/wav', 'content-length': String(RESULT.length) });
        return void res.end(RESULT);
      }
      res.writeHead(200, { 'content-type': 'audio/wav', 'content-length': '10000000000' });
      res.write(Buffer.alloc(64 * 1024, 9));
    };
    const { env, fileGets } = await host(lying, {});

    const result = await runCli(['download', 'job1', '-o', out, '-c', '1'], { env });
    expect(result.exitCode).toBe(1);
    expect(fileGets()).toBe(3);
    expect(result.stderr).toContain(
      "error: a.wav: the file is announced at 10000000000 bytes, more than the longest recording the service accepts (1:00:00) can need (1452568576); nothing of it was kept; report the file to the service's operators",
    );
    expect(result.stderr).not.toMatch(/not enough free space/);
    expect((await readdir(out)).sort()).toEqual(['b.wav', 'c.wav', 'other-data.bin']);
  });
});
