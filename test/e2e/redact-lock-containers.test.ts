/**
 * Locks of containers that share a host name (a Kubernetes Indexed Job's replacement pod keeps
 * `<job>-<index>`; Docker's `--hostname`, `--network host`), through the built binary: a lock of our
 * host name from another pid namespace is judged by its lease, as another host's, never by its pid,
 * which means nothing here. Build first: `npm run build`.
 */
import { mkdir, readFile, utimes, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { setup } from '../helpers/e2e.js';
import { ANOTHER_PID_NAMESPACE, OUR_PROCESS_SPACE } from '../helpers/process-space.js';

/** A lock of a run that is gone from this process space: its pid is alive nowhere here. */
function lockOf(space: Record<string, string>): string {
  const owner = {
    pid: 2 ** 30,
    hostname: hostname(),
    startedAt: new Date().toISOString(),
    id: '0123456789abcdef',
    refreshMs: 30_000,
    ...space,
  };
  return `${JSON.stringify(owner)}\n`;
}

describe('vredact redact on a lock of our host name', () => {
  it('from another container: refused while its lease holds (exit 2, nothing sent), taken over once it lapsed', async () => {
    const t = await setup();
    try {
      await t.fixture('speech-8k-ulaw.wav', 'in/a.wav');
      const lock = join(t.dir, 'redacted', '.vredact', 'lock');
      await mkdir(join(t.dir, 'redacted', '.vredact'), { recursive: true });
      const theirs = lockOf({ ...OUR_PROCESS_SPACE, pidNamespace: ANOTHER_PID_NAMESPACE });
      await writeFile(lock, theirs, { mode: 0o600 });

      const refused = await t.redact(['in']);
      expect(refused.exitCode, String(refused.stderr)).toBe(2);
      expect(String(refused.stderr)).toMatch(
        /^error: another vredact run is using the output folder .*redacted \(pid 1073741824 on .* in another container \(or another boot\), started .*\)$/m,
      );
      expect(String(refused.stderr)).toMatch(
        /^hint: wait for it to finish; a lock its run stops refreshing is taken over after 10 min; or run again with --lock-wait <duration> to wait for it$/m,
      );
      expect((await t.sandbox.stats()).uploads).toBe(0);
      expect(await readFile(lock, 'utf8')).toBe(theirs);

      // Unrefreshed for an hour: that container is gone.
      const hourAgo = new Date(Date.now() - 3_600_000);
      await utimes(lock, hourAgo, hourAgo);
      const taken = await t.redact(['in']);
      expect(taken.exitCode, String(taken.stderr)).toBe(0);
      expect(String(taken.stderr)).toMatch(/took over the lock .* has not refreshed it for 60 min/);
      expect((await t.sandbox.stats()).uploads).toBe(1);
    } finally {
      await t.cleanup();
    }
  });

  it('from this container, its pid gone: taken over at once, with a fresh lease', async () => {
    const t = await setup();
    try {
      await t.fixture('speech-8k-ulaw.wav', 'in/a.wav');
      await mkdir(join(t.dir, 'redacted', '.vredact'), { recursive: true });
      await writeFile(join(t.dir, 'redacted', '.vredact', 'lock'), lockOf(OUR_PROCESS_SPACE), {
        mode: 0o600,
      });
      const taken = await t.redact(['in']);
      expect(taken.exitCode, String(taken.stderr)).toBe(0);
      expect(String(taken.stderr)).toMatch(/took over the lock .*ended without releasing it/);
      expect((await t.sandbox.stats()).uploads).toBe(1);
    } finally {
      await t.cleanup();
    }
  });
});
