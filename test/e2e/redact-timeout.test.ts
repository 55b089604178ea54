/**
 * `timeout` around a run, as a cron job or a CI step puts it: when its time is up (SIGALRM to
 * `timeout` itself, as its own timer raises), it sends the signal to vredact and to vredact's process
 * group, so vredact may be sent it twice in a row. Either way it is one first interrupt: the uploads
 * held in flight finish and are recorded, nothing is left half-written, and a run again sends only
 * what was not sent.
 */
import { join } from 'node:path';
import { execa } from 'execa';
import { afterEach, describe, expect, it } from 'vitest';
import { BIN, collectStderr, isolatedEnv, runCli, tempDirPerTest } from '../helpers/cli.js';
import { listFiles, until } from '../helpers/e2e.js';
import { type HoldingService, holdingService, uploads } from '../helpers/holding-service.js';
import { latestEvents } from '../helpers/journal.js';
import { speechInputs } from '../helpers/speech-files.js';

const TOKEN = 'vr_timeout_0123456789abcdef';
const FILES = 5;
const dir = tempDirPerTest('vredact-timeout-');

let service: HoldingService | undefined;
afterEach(async () => {
  service?.release();
  await service?.server.close();
  service = undefined;
});

describe('`timeout` stopping a run', () => {
  it.each([
    ['TERM', /^warning: interrupted \(SIGTERM\): finishing the 2 uploads in flight, then exiting; /m],
    ['INT', /^warning: interrupted: finishing the 2 uploads in flight, then exiting; /m],
  ])(
    '`timeout -s %s` is one first interrupt: the held uploads finish and are journaled, no temporary file, nothing sent twice',
    async (signal, firstLine) => {
      service = await holdingService();
      await speechInputs(dir.path, FILES);
      const env = isolatedEnv(join(dir.path, '.config'), {
        VREDACT_BASE_URL: service.server.baseUrl,
        VREDACT_TOKEN: TOKEN,
      });
      const child = execa(
        'timeout',
        ['--preserve-status', '-s', signal, '600', 'node', BIN, 'redact', 'in', '-c', '2', '-o', 'out'],
        { cwd: dir.path, env, extendEnv: false, stdin: 'ignore', reject: false },
      );
      const stderr = collectStderr(child);
      await until(async () => uploads(service!.server) === 2);
      // What `timeout` does when its time is up.
      child.kill('SIGALRM');
      await until(async () => stderr().includes('interrupted'));
      service.release();
      const result = await child;

      expect(result.exitCode, result.stderr).toBe(130);
      expect(result.stderr).toMatch(firstLine);
      expect(result.stderr).not.toMatch(/aborting|^\s+at /m);
      expect(uploads(service.server)).toBe(2);
      const out = join(dir.path, 'out');
      const events = await latestEvents(out);
      expect(Object.values(events).filter((event) => event === 'done')).toHaveLength(2);
      expect(Object.values(events)).not.toContain('uploading');
      const files = await listFiles(out);
      expect(files.filter((file) => !file.startsWith('.vredact/') && !/^call-\d+\.wav$/.test(file))).toEqual(
        [],
      );
      expect(files.filter((file) => file.endsWith('.wav'))).toHaveLength(2);

      const again = await runCli(['redact', 'in', '-c', '2', '-o', 'out'], { env, cwd: dir.path });
      expect(again.exitCode, String(again.stderr)).toBe(0);
      expect(uploads(service.server)).toBe(FILES);
      expect(new Set(service.uploadNames.map((name) => name.replace(/\.[0-9a-f]{8}\./, '.'))).size).toBe(
        FILES,
      );
    },
  );
});
