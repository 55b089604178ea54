/**
 * `vredact redact` and what the file system does to its inputs and outputs, through the built binary
 * against the sandbox: inputs that are not readable files are rejected, each with its reason, and the
 * batch goes on; an output the file system refuses (too large, no space) fails by its path, as a
 * file-system error, is never sent again in that run, and is sent again by the next.
 */
import { chmod, mkdir, rm, symlink, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { BIN, isolatedEnv, runCli, tempDirPerTest } from '../helpers/cli.js';
import { isWav, jsonLines, listFiles, setup } from '../helpers/e2e.js';
import { MOUNT_SKIP_REASON, tryMountTmpfs } from '../helpers/mount.js';
import { latestEvents } from '../helpers/journal.js';
import { makeWav } from '../helpers/mp3.js';
import { sendJson, startScriptedServer } from '../helpers/scripted-server.js';
import { PERMISSIONS_SKIP_REASON, permissionBitsPrefix, runCliUnder } from '../helpers/unprivileged.js';
import { expectFileBytes } from '../helpers/same-bytes.js';

const dir = tempDirPerTest('vredact-e2e-local-fs-files-');

describe('vredact redact: inputs the file system will not give', () => {
  it('a FIFO, a socket, a device, a link loop, a broken link and a folder are rejected unopened; the rest is sent', async () => {
    const t = await setup();
    const socket = createServer();
    try {
      const inDir = join(t.dir, 'in');
      await mkdir(join(inDir, 'folder.wav'), { recursive: true });
      await writeFile(join(inDir, 'ok.wav'), makeWav(0.5));
      await execa('mkfifo', [join(inDir, 'fifo.wav')]);
      await new Promise<void>((resolve) => socket.listen(join(inDir, 'socket.wav'), resolve));
      await symlink('/dev/zero', join(inDir, 'device.wav'));
      await symlink('loop.wav', join(inDir, 'loop.wav'));
      await symlink('gone.wav', join(inDir, 'broken.wav'));
      const reasons = {
        'in/fifo.wav': 'not a regular file',
        'in/socket.wav': 'not a regular file',
        'in/device.wav': 'not a regular file',
        'in/loop.wav': 'too many levels of symbolic links',
        'in/broken.wav': 'a broken symbolic link: it points to gone.wav, which does not exist',
      };
      // Found in a folder, and named one by one (a FIFO never hangs the run: it is never opened).
      for (const args of [['in'], [...Object.keys(reasons), 'in/folder.wav', 'in/ok.wav']]) {
        const run = await t.redact([...args, '-o', 'out', '--json', '--overwrite']);
        expect(run.exitCode).toBe(1);
        const lines = jsonLines(run.stdout).filter((line) => line.input !== undefined);
        const byInput = Object.fromEntries(lines.map((line) => [line.input, line]));
        for (const [input, reason] of Object.entries(reasons))
          expect(byInput[input]).toMatchObject({ status: 'rejected', reason });
        expect(byInput['in/ok.wav']).toMatchObject({ status: 'done' });
      }
      expect((await t.sandbox.stats()).uploads).toBe(2);
    } finally {
      socket.close();
      await t.cleanup();
    }
  });

  it('an input that cannot be read is rejected as "permission denied"; the rest is sent', async ({
    skip,
  }) => {
    const prefix = permissionBitsPrefix();
    if (!prefix) return skip(PERMISSIONS_SKIP_REASON);
    const t = await setup();
    try {
      await mkdir(join(t.dir, 'in'));
      await writeFile(join(t.dir, 'in', 'a.wav'), makeWav(0.5));
      await writeFile(join(t.dir, 'in', 'b.wav'), makeWav(0.5));
      await chmod(join(t.dir, 'in', 'a.wav'), 0o000);
      const run = await runCliUnder(prefix, ['redact', 'in', '-o', 'out'], { cwd: t.dir, env: t.env });
      expect(run.exitCode).toBe(1);
      expect(String(run.stdout).split('\n').sort()).toEqual([
        'done\tin/b.wav\tout/b.wav',
        'rejected\tin/a.wav\tpermission denied',
      ]);
      expect((await t.sandbox.stats()).uploads).toBe(1);
    } finally {
      await t.cleanup();
    }
  });
});

describe('vredact redact: inputs deleted while the run goes on', () => {
  it('files deleted after the listing, before or after their check, are rejected unsent; the rest is done', async () => {
    const wav = makeWav(0.5);
    const inDir = join(dir.path, 'in');
    await mkdir(inDir);
    const names = Array.from({ length: 12 }, (_, i) => `f${String(i).padStart(2, '0')}.wav`);
    for (const name of names) await writeFile(join(inDir, name), wav);
    // While the first upload is held, the checks run ahead of it: f02 is checked by then, f11 is not.
    const server = await startScriptedServer(async (_req, res, _body, index) => {
      if (index === 0) for (const name of ['f02.wav', 'f11.wav']) await rm(join(inDir, name));
      res.writeHead(200, { 'content-type': 'audio/wav', 'content-length': wav.length });
      res.end(wav);
    });
    try {
      const run = await runCli(['redact', 'in', '-o', 'out', '-c', '1'], {
        cwd: dir.path,
        env: isolatedEnv(join(dir.path, 'config'), {
          VREDACT_BASE_URL: server.baseUrl,
          VREDACT_TOKEN: 'vr_test_deleted',
        }),
      });
      expect(run.exitCode).toBe(1);
      const lines = String(run.stdout).split('\n');
      for (const name of ['f02.wav', 'f11.wav'])
        expect(lines).toContain(`rejected\tin/${name}\tno such file or folder`);
      expect(server.received).toHaveLength(10);
      const outputs = (await listFiles(join(dir.path, 'out'))).filter((path) => path.endsWith('.wav'));
      expect(outputs).toEqual(names.filter((name) => name !== 'f02.wav' && name !== 'f11.wav'));
      const events = await latestEvents(join(dir.path, 'out'));
      // Never sent: an upload line journaled ahead for it is taken back; a file found missing at its
      // check has no record, or its rejection's (which of the two depends on the run's pace).
      for (const name of ['f02.wav', 'f11.wav'])
        expect([undefined, 'withdrawn', 'rejected']).toContain(events[name]);
    } finally {
      await server.close();
    }
  });
});

describe('vredact redact: inputs replaced by a FIFO after their check', () => {
  it("a FIFO in a checked input's place before its upload is retried: failed as not a regular file, never opened to block", async () => {
    // Over 256 KiB: read again for each attempt, not kept in memory from its check.
    const big = makeWav(20, 8000);
    const small = makeWav(0.5);
    const inDir = join(dir.path, 'in');
    await mkdir(inDir);
    await writeFile(join(inDir, 'a-big.wav'), big);
    await writeFile(join(inDir, 'b-small.wav'), small);
    let swapped = false;
    const server = await startScriptedServer(async (_req, res, body) => {
      if (body.length > big.length && !swapped) {
        // a-big.wav's first upload is answered "try again" once its file is a FIFO.
        swapped = true;
        await rm(join(inDir, 'a-big.wav'));
        await execa('mkfifo', [join(inDir, 'a-big.wav')]);
        res.writeHead(503, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: 'unavailable', message: 'try again' }));
        return;
      }
      res.writeHead(200, { 'content-type': 'audio/wav', 'content-length': small.length });
      res.end(small);
    });
    try {
      const run = await runCli(['redact', 'in/a-big.wav', 'in/b-small.wav', '-o', 'out', '-c', '1'], {
        cwd: dir.path,
        // A blocking open of the FIFO would never return: the run is ended, and the test fails, instead.
        timeout: 20_000,
        env: isolatedEnv(join(dir.path, 'config'), {
          VREDACT_BASE_URL: server.baseUrl,
          VREDACT_TOKEN: 'vr_test_fifo_swap',
        }),
      });

      expect(run.timedOut).toBe(false);
      expect(run.exitCode).toBe(1);
      const lines = String(run.stdout).split('\n');
      expect(lines).toContain('failed\tin/a-big.wav\tnot a regular file');
      expect(lines).toContain('done\tin/b-small.wav\tout/b-small.wav');
      expect(server.received.filter((request) => request.method === 'POST')).toHaveLength(2);
      const outputs = (await listFiles(join(dir.path, 'out'))).filter((path) => path.endsWith('.wav'));
      expect(outputs).toEqual(['b-small.wav']);
    } finally {
      await server.close();
    }
  });
});

describe('vredact redact: outputs the file system refuses', () => {
  it('over the file-size limit (ulimit -f): failed by its path, never as a network error; the next run sends it again', async () => {
    const t = await setup();
    try {
      await mkdir(join(t.dir, 'in'));
      await writeFile(join(t.dir, 'in', 'a.wav'), makeWav(4));
      // 64 KiB: the journal fits, a result of 4 s (128 KB) does not.
      const limited = await execa(
        'sh',
        ['-c', 'ulimit -f 128 && exec "$0" "$@"', process.execPath, BIN, 'redact', 'in', '-o', 'out'],
        {
          cwd: t.dir,
          env: t.env,
          extendEnv: false,
          reject: false,
          stdin: 'ignore',
        },
      );
      expect(limited.exitCode).toBe(1);
      const output = join(t.dir, 'out', 'a.wav');
      // It said "file too large for the file system", of a file system that takes files of terabytes.
      expect(limited.stdout).toBe(
        `failed\tin/a.wav\twriting ${output}: file too large: over the file-size limit (ulimit -f) or the largest file the file system takes (EFBIG)`,
      );
      expect(limited.stderr).not.toMatch(/network/);
      expect(await listFiles(join(t.dir, 'out'))).toEqual(['.vredact/journal.jsonl']);
      expect(await latestEvents(join(t.dir, 'out'))).toEqual({ 'a.wav': 'failed' });
      const again = await t.redact(['in', '-o', 'out']);
      expect(again.exitCode).toBe(0);
      expect(await isWav(output)).toBe(true);
      expect((await t.sandbox.stats()).uploads).toBe(2);
    } finally {
      await t.cleanup();
    }
  });

  it('no space left for a result larger than estimated: the batch stops naming the path, nothing half-written, and the next run finishes', async ({
    skip,
  }) => {
    const out = join(dir.path, 'out');
    const mounted = await tryMountTmpfs(out, '2m');
    if (!mounted) return skip(MOUNT_SKIP_REASON);
    // Sent only with room for the result as estimated (a 16 kHz speech WAV of 7 s, 288 KiB): this
    // service answers at 192 kHz (2.7 MB, under the cap), so the write itself meets the full disk.
    const result = makeWav(7, 192_000);
    const server = await startScriptedServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'audio/wav', 'content-length': result.length });
      res.end(result);
    });
    try {
      await mkdir(join(dir.path, 'in'));
      for (const name of ['a', 'b', 'c', 'd', 'e'])
        await writeFile(join(dir.path, 'in', `${name}.wav`), makeWav(7));
      const env = isolatedEnv(join(dir.path, 'config'), {
        VREDACT_BASE_URL: server.baseUrl,
        VREDACT_TOKEN: 'vr_test_no_space',
      });
      const run = () => runCli(['redact', 'in', '-o', 'out', '-c', '1'], { cwd: dir.path, env });
      const full = await run();
      expect(full.exitCode).toBe(1);
      expect(full.stderr).toMatch(
        new RegExp(`error: the batch stopped: writing ${out}/[a-e]\\.wav: no space left on the device`),
      );
      expect(full.stderr).toContain('hint: free some space (or choose another -o), then run again');
      expect(full.stderr).not.toMatch(/network/);
      const sent = server.received.length;
      const events = await latestEvents(out);
      expect(Object.values(events).filter((event) => event === 'failed')).toHaveLength(1);
      // Nothing under an output name, no temporary file left.
      expect(await listFiles(out)).toEqual(['.vredact/journal.jsonl']);
      await mounted.resize('32m');
      const again = await run();
      expect(again.exitCode).toBe(0);
      // Each is sent once more: the failed one again, the others for the first time.
      expect(server.received.length).toBe(sent + 5);
      expect(Object.values(await latestEvents(out))).toEqual(Array(5).fill('done'));
      for (const name of ['a', 'b', 'c', 'd', 'e']) expect(await isWav(join(out, `${name}.wav`))).toBe(true);
    } finally {
      await server.close();
      await mounted.unmount();
    }
  });

  it("no space left for an asynchronous job's result: the job is kept, and the next run collects it without sending the file again", async ({
    skip,
  }) => {
    const out = join(dir.path, 'out');
    const mounted = await tryMountTmpfs(out, '2m');
    if (!mounted) return skip(MOUNT_SKIP_REASON);
    // The result, at 192 kHz (2.7 MB, under the cap), is larger than the room the estimate asked for.
    const result = makeWav(7, 192_000);
    let uploads = 0;
    const server = await startScriptedServer((req, res) => {
      const url = req.url ?? '';
      if (req.method === 'POST' && url === '/api/speech-to-speech-biometric-redaction') {
        uploads++;
        return sendJson(res, 202, { job_id: `job-${uploads}` });
      }
      const content = /^\/api\/jobs\/(job-\d+)\/content$/.exec(url);
      if (content) {
        return sendJson(res, 200, {
          jobContent: [{ id: 1, job_id: content[1], file_name: 'result.wav', audio_duration: 7 }],
        });
      }
      if (/^\/api\/jobs\/job-\d+\/files\/download-url$/.test(url)) {
        return sendJson(res, 200, { signedUrl: `${server.baseUrl}/files/result.wav` });
      }
      if (url === '/files/result.wav') {
        res.writeHead(200, { 'content-type': 'audio/wav', 'content-length': result.length });
        return void res.end(result);
      }
      sendJson(res, 404, { error: 404, message: 'no route' });
    });
    try {
      await mkdir(join(dir.path, 'in'));
      await writeFile(join(dir.path, 'in', 'a.wav'), makeWav(7));
      const env = isolatedEnv(join(dir.path, 'config'), {
        VREDACT_BASE_URL: server.baseUrl,
        VREDACT_TOKEN: 'vr_test_no_space_job',
      });
      const run = () => runCli(['redact', 'in', '-o', 'out', '-c', '1'], { cwd: dir.path, env });
      const full = await run();
      expect(full.exitCode).toBe(1);
      expect(full.stderr).toMatch(/no space left on the device/);
      expect(uploads).toBe(1);
      expect(await latestEvents(out)).toEqual({ 'a.wav': 'submitted' });
      expect(await listFiles(out)).toEqual(['.vredact/journal.jsonl']);
      await mounted.resize('32m');
      const again = await run();
      expect(again.exitCode, String(again.stderr)).toBe(0);
      expect(uploads).toBe(1); // collected, never sent again
      expect(await latestEvents(out)).toEqual({ 'a.wav': 'done' });
      // Compared as bytes: toEqual walks a 2.7 MB buffer element by element, which took most of the
      // test's minute on a loaded machine.
      await expectFileBytes(join(out, 'a.wav'), result);
    } finally {
      await server.close();
      await mounted.unmount();
    }
  });
});
