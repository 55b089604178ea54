/**
 * `vredact redact` on an output disk too full for the results: nothing is sent that could not be
 * saved (the service would redact it every night for nothing), the batch stops saying how much is
 * free where and what the next file needs, and once space is freed the same command sends them.
 * Through the built binary, on a small tmpfs, against a scripted service that counts the uploads.
 */
import { mkdir, statfs, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isolatedEnv, runCli, tempDirPerTest } from '../helpers/cli.js';
import { isWav } from '../helpers/e2e.js';
import { MOUNT_SKIP_REASON, tryMountTmpfs } from '../helpers/mount.js';
import { latestEvents } from '../helpers/journal.js';
import { makeWav } from '../helpers/mp3.js';
import { sendJson, startScriptedServer } from '../helpers/scripted-server.js';

const REDACT = '/api/speech-to-speech-biometric-redaction';
const dir = tempDirPerTest('vredact-e2e-free-space-');

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

async function freeBytes(path: string): Promise<number> {
  const info = await statfs(path);
  return info.bavail * info.bsize;
}

describe('vredact redact: an output disk too full for the results', () => {
  it('sends nothing, stops naming the folder, its free space and the need; after space is freed the same command finishes', async ({
    skip,
  }) => {
    // A folder's name may hold an escape sequence: the messages that name it show it escaped.
    const out = join(dir.path, 'out\x1b[2J');
    const shown = out.replace('\x1b', '\\x1b');
    const mounted = await tryMountTmpfs(out, '2m');
    if (!mounted) return skip(MOUNT_SKIP_REASON);
    let uploads = 0;
    const server = await startScriptedServer((req, res) => {
      if (req.method === 'POST' && req.url === REDACT) {
        uploads++;
        // 7 s of 16 kHz mono, 16-bit: 224 KB, what a speech service returns for 7 s.
        const wav = makeWav(7, 16_000);
        res.writeHead(200, { 'content-type': 'audio/wav', 'content-length': wav.length });
        res.end(wav);
        return;
      }
      sendJson(res, 200, { jobs: [] });
    });
    try {
      await mkdir(join(dir.path, 'in'));
      for (const name of ['a', 'b', 'c']) await writeFile(join(dir.path, 'in', `${name}.wav`), makeWav(7));
      // Room for less than one result: the disk of a night that ran full.
      await writeFile(join(out, 'other-data.bin'), Buffer.alloc((await freeBytes(out)) - 150 * 1024, 1));
      const env = isolatedEnv(join(dir.path, 'config'), {
        VREDACT_BASE_URL: server.baseUrl,
        VREDACT_TOKEN: 'vr_test_free_space',
      });
      const run = () => runCli(['redact', 'in', '-o', out, '-c', '2'], { cwd: dir.path, env });

      // A dry run says so, without the network.
      const dry = await runCli(['redact', 'in', '-o', out, '--dry-run'], { cwd: dir.path, env });
      expect(dry.exitCode).toBe(0);
      expect(dry.stderr).toMatch(
        new RegExp(
          `warning: not enough free space for the results: ${escapeRegExp(shown)} has [\\d.]+ KiB free, the 3 file\\(s\\) that would be sent need about [\\d.]+ KiB`,
        ),
      );
      expect(dry.stderr).toContain(`free some space on ${shown} before the run`);
      expect(server.received).toHaveLength(0);

      const full = await run();
      expect(uploads).toBe(0);
      expect(full.exitCode).toBe(1);
      expect(full.stderr).toMatch(
        new RegExp(
          `error: the batch stopped: not enough free space for the next result: ${escapeRegExp(shown)} has [\\d.]+ [KM]iB free, in/[abc]\\.wav needs about [\\d.]+ KiB`,
        ),
      );
      expect(full.stderr).toContain(`hint: free some space on ${shown}, then run the same command again`);
      expect(full.stderr).not.toContain('\x1b');
      // Not failed: nothing was sent; each stays to be sent.
      expect(String(full.stdout).split('\n').filter(Boolean).sort()).toEqual(
        ['a', 'b', 'c'].map((name) =>
          expect.stringMatching(new RegExp(`^pending\\tin/${name}\\.wav\\t.*not sent`)),
        ),
      );
      const events = await latestEvents(out).catch(() => ({}));
      expect(Object.values(events)).not.toContain('failed');
      expect(Object.values(events)).not.toContain('uploading');

      await mounted.resize('8m');
      const dryAgain = await runCli(['redact', 'in', '-o', out, '--dry-run'], { cwd: dir.path, env });
      expect(dryAgain.exitCode).toBe(0);
      expect(dryAgain.stderr).not.toContain('free space');
      const again = await run();
      expect(again.exitCode).toBe(0);
      expect(uploads).toBe(3);
      expect(await latestEvents(out)).toEqual({ 'a.wav': 'done', 'b.wav': 'done', 'c.wav': 'done' });
      for (const name of ['a', 'b', 'c']) expect(await isWav(join(out, `${name}.wav`))).toBe(true);
    } finally {
      await server.close();
      await mounted.unmount();
    }
  });
});
