/**
 * Interrupts of `vredact download` through the built binary, its stdout and stderr pipes: the first
 * (SIGINT, SIGTERM) starts no new file and lets those in flight finish, whole, then exits 130; a
 * second aborts them, leaving nothing behind; a hangup with no terminal is ignored. A re-run skips
 * what was saved and fetches the rest.
 */
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { isolatedEnv, runCli, tempDirPerTest } from '../helpers/cli.js';
import { pauseBeforeAnotherSignal, until } from '../helpers/e2e.js';
import { startFileHost } from '../helpers/file-host.js';
import { type HoldingFileHost, savedFiles, startHoldingFileHost } from '../helpers/holding-file-host.js';
import { wavCutShort } from '../helpers/result-wav.js';

const FILES = 6;
const dir = tempDirPerTest('vredact-e2e-download-int-');

let host: HoldingFileHost | undefined;
afterEach(async () => {
  await host?.close();
  host = undefined;
});

function envFor(baseUrl: string): NodeJS.ProcessEnv {
  return isolatedEnv(join(dir.path, 'config'), {
    VREDACT_BASE_URL: baseUrl,
    VREDACT_TOKEN: 'vr_test_interrupt',
  });
}

/** `download` of the whole job at -c 2 (or of the files named, with other flags), its stderr gathered as it comes. */
function startDownload(baseUrl: string, out: string, args: string[] = []) {
  const child = runCli(['download', 'job1', ...args, '-c', '2', '-o', out], { env: envFor(baseUrl) });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  return { child, stderr: () => stderr };
}

/** Resolves once `check` holds or the run has ended (set-up, not an assertion). */
async function untilOrEnded(check: () => boolean, ended: Promise<unknown>): Promise<void> {
  let over = false;
  const end = () => {
    over = true;
  };
  ended.then(end, end);
  await until(async () => over || check(), 30_000);
}

/**
 * A download of `args` into `out`, sent `signal` once its first two files are under way, and let go
 * once it says it was interrupted: its result, and its stderr.
 */
async function interruptedWithTwoInFlight(
  out: string,
  args: string[] = [],
  signal: NodeJS.Signals = 'SIGINT',
) {
  const run = startDownload(host!.baseUrl, out, args);
  await until(async () => host!.gets() === 2, 30_000);
  run.child.kill(signal);
  await untilOrEnded(() => run.stderr().includes('interrupted'), run.child);
  host!.release();
  return { result: await run.child, stderr: run.stderr };
}

/** A download of the whole job, sent SIGINT once its first two files are under way, then SIGINT again. */
async function abortedBySecondSigint(out: string, args: string[] = []) {
  const run = startDownload(host!.baseUrl, out, args);
  await until(async () => host!.gets() === 2, 30_000);
  run.child.kill('SIGINT');
  await untilOrEnded(() => run.stderr().includes('interrupted'), run.child);
  await pauseBeforeAnotherSignal();
  run.child.kill('SIGINT');
  const result = await run.child;
  return { result, stderr: run.stderr() };
}

describe('download, interrupted', () => {
  it.each(['SIGINT', 'SIGTERM'] as const)(
    'a first %s lets the files in flight finish whole, starts no other, exits 130; a re-run fetches the rest',
    async (signal) => {
      host = await startHoldingFileHost(FILES);
      const out = join(dir.path, 'out');
      const { result, stderr } = await interruptedWithTwoInFlight(out, [], signal);

      expect(result.exitCode, `signal ${String(result.signal)}; stderr: ${stderr()}`).toBe(130);
      expect(host.gets()).toBe(2);
      expect(await savedFiles(out, host)).toEqual({ names: ['f0.wav', 'f1.wav'], whole: true });
      expect(String(result.stdout).split('\n').sort()).toEqual([join(out, 'f0.wav'), join(out, 'f1.wav')]);
      expect(stderr()).toMatch(
        signal === 'SIGINT'
          ? /^warning: interrupted: finishing the 2 downloads in flight, then exiting; press Ctrl-C again to stop them now$/m
          : /^warning: interrupted \(SIGTERM\): finishing the 2 downloads in flight, then exiting; SIGTERM or Ctrl-C again stops them now$/m,
      );
      expect(stderr()).toMatch(
        /^error: interrupted: run the same command again to fetch the files not yet saved \(what is saved is skipped\)$/m,
      );

      const again = await runCli(['download', 'job1', '-c', '2', '-o', out], { env: envFor(host.baseUrl) });
      expect(again.exitCode, String(again.stderr)).toBe(0);
      expect(await savedFiles(out, host)).toEqual({
        names: Object.keys(host.files).sort(),
        whole: true,
      });
      expect(host.fileGets('f0.wav')).toBe(1);
      expect(host.fileGets('f1.wav')).toBe(1);
      expect(host.gets()).toBe(FILES);
    },
    60_000,
  );

  it('--json: a first SIGINT reports the files in flight downloaded and those listed but never started pending, "not started: interrupted"', async () => {
    host = await startHoldingFileHost(FILES);
    const out = join(dir.path, 'out');
    const { result, stderr } = await interruptedWithTwoInFlight(out, ['--json']);

    expect(result.exitCode, `signal ${String(result.signal)}; stderr: ${stderr()}`).toBe(130);
    const outcomes = JSON.parse(String(result.stdout)) as Array<Record<string, unknown>>;
    const states = outcomes
      .map(({ fileName, status, reason }) => [fileName, status, reason])
      .sort((a, b) => String(a[0]).localeCompare(String(b[0])));
    expect(states).toEqual([
      ['f0.wav', 'downloaded', undefined],
      ['f1.wav', 'downloaded', undefined],
      ['f2.wav', 'pending', 'not started: interrupted'],
      ['f3.wav', 'pending', 'not started: interrupted'],
      ['f4.wav', 'pending', 'not started: interrupted'],
      ['f5.wav', 'pending', 'not started: interrupted'],
    ]);
    expect(await savedFiles(out, host)).toEqual({ names: ['f0.wav', 'f1.wav'], whole: true });
  }, 60_000);

  it('the files named but never started are counted pending in the summary, none failed', async () => {
    host = await startHoldingFileHost(FILES);
    const out = join(dir.path, 'out');
    const { result, stderr } = await interruptedWithTwoInFlight(out, [
      'f0.wav',
      'f1.wav',
      'f2.wav',
      'f3.wav',
    ]);

    expect(result.exitCode, `signal ${String(result.signal)}; stderr: ${stderr()}`).toBe(130);
    expect(String(result.stdout).split('\n').sort()).toEqual([join(out, 'f0.wav'), join(out, 'f1.wav')]);
    expect(stderr()).toMatch(/^2 downloaded, 0 skipped, 0 failed, 2 pending \(not started\)$/m);
  }, 60_000);

  it('a second SIGINT aborts the files in flight: nothing is left, not even a temporary file; exit 130', async () => {
    host = await startHoldingFileHost(FILES);
    const out = join(dir.path, 'out');
    const { result, stderr } = await abortedBySecondSigint(out);

    expect(result.exitCode, `signal ${String(result.signal)}; stderr: ${stderr}`).toBe(130);
    expect(await readdir(out)).toEqual([]);
    expect(host.gets()).toBe(2);
  }, 60_000);

  it('the files a second SIGINT aborts are pending "not finished: interrupted", each on its line and in the summary, none failed; a re-run fetches every file', async () => {
    host = await startHoldingFileHost(FILES);
    const out = join(dir.path, 'out');
    const { result, stderr } = await abortedBySecondSigint(out);

    expect(result.exitCode, `signal ${String(result.signal)}; stderr: ${stderr}`).toBe(130);
    expect(await readdir(out)).toEqual([]);
    expect(String(result.stdout)).toBe('');
    expect(stderr).toMatch(/^warning: f0\.wav: not finished: interrupted$/m);
    expect(stderr).toMatch(/^warning: f1\.wav: not finished: interrupted$/m);
    expect(stderr).not.toMatch(/^error: f\d\.wav/m);
    expect(stderr).toMatch(
      /^0 downloaded, 0 skipped, 0 failed, 6 pending \(2 interrupted, 4 not started\)$/m,
    );
    expect(stderr).toMatch(
      /^error: interrupted: run the same command again to fetch the files not yet saved/m,
    );

    host.release();
    const again = await runCli(['download', 'job1', '-c', '2', '-o', out], { env: envFor(host.baseUrl) });
    expect(again.exitCode, String(again.stderr)).toBe(0);
    expect(await savedFiles(out, host)).toEqual({ names: Object.keys(host.files).sort(), whole: true });
  }, 60_000);

  it('--json: the files a second SIGINT aborts are pending "not finished: interrupted", not failed', async () => {
    host = await startHoldingFileHost(FILES);
    const out = join(dir.path, 'out');
    const { result, stderr } = await abortedBySecondSigint(out, ['--json']);

    expect(result.exitCode, `signal ${String(result.signal)}; stderr: ${stderr}`).toBe(130);
    const outcomes = JSON.parse(String(result.stdout)) as Array<Record<string, unknown>>;
    const states = outcomes
      .map(({ fileName, status, reason, path }) => [fileName, status, reason, path])
      .sort((a, b) => String(a[0]).localeCompare(String(b[0])));
    expect(states).toEqual([
      ['f0.wav', 'pending', 'not finished: interrupted', null],
      ['f1.wav', 'pending', 'not finished: interrupted', null],
      ['f2.wav', 'pending', 'not started: interrupted', null],
      ['f3.wav', 'pending', 'not started: interrupted', null],
      ['f4.wav', 'pending', 'not started: interrupted', null],
      ['f5.wav', 'pending', 'not started: interrupted', null],
    ]);
    expect(await readdir(out)).toEqual([]);
  }, 60_000);

  it('a hangup with no terminal on stdout or stderr (nohup) is ignored: every file is fetched, exit 0', async () => {
    host = await startHoldingFileHost(FILES);
    const out = join(dir.path, 'out');
    const run = startDownload(host.baseUrl, out);
    await until(async () => host!.gets() === 2, 30_000);
    run.child.kill('SIGHUP');
    await untilOrEnded(() => run.stderr().includes('hangup'), run.child);
    host.release();
    const result = await run.child;

    expect(result.signal, run.stderr()).toBeUndefined();
    expect(result.exitCode, run.stderr()).toBe(0);
    expect(await savedFiles(out, host)).toEqual({ names: Object.keys(host.files).sort(), whole: true });
    expect(run.stderr()).toMatch(/^hangup ignored/m);
  }, 60_000);

  it('a second SIGINT while a body trickles in leaves no partial file and exits 130', async () => {
    // Sends the headers and a first part of a long body, then holds the rest back. The part is
    // larger than what a writer gathers before its first write, so a partial file is on disk.
    const server = await startFileHost({}, (_name, res) => {
      res.writeHead(200, { 'content-type': 'audio/wav', 'content-length': String(10 * 1024 * 1024) });
      // A WAV whose header declares the whole length: its first MiB.
      res.write(wavCutShort(10 * 1024 * 1024 - 44, 1024 * 1024 - 44));
    });
    try {
      const out = join(dir.path, 'out');
      const run = startDownload(server.baseUrl, out, ['slow.wav']);
      // The download's own partial file, with bytes in it (the folder's write check makes an empty one).
      await until(async () => {
        const names = await readdir(out).catch(() => [] as string[]);
        const sizes = await Promise.all(
          names
            .filter((name) => name.endsWith('.vredact-partial'))
            .map((name) =>
              stat(join(out, name)).then(
                (info) => info.size,
                () => 0,
              ),
            ),
        );
        return sizes.some((size) => size > 0);
      }, 30_000);
      run.child.kill('SIGINT');
      await untilOrEnded(() => run.stderr().includes('interrupted'), run.child);
      await pauseBeforeAnotherSignal();
      run.child.kill('SIGINT');
      const result = await run.child;
      expect(result.exitCode, `signal ${String(result.signal)}; stderr: ${run.stderr()}`).toBe(130);
      expect(await readdir(out)).toEqual([]);
      expect(server.fileGets('slow.wav')).toBe(1);
    } finally {
      await server.close();
    }
  }, 60_000);
});
