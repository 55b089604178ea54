/**
 * A file reached by two hard links is one file: the built binary against the sandbox sends it once,
 * within a run and across runs, and a copy (another file) is sent. Build first: `npm run build`.
 */
import { copyFile, link, mkdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { jsonLines, listFiles, setup } from '../helpers/e2e.js';

const SENT_AS_A = 'the same file as in/a.wav (a hard link): sent once as that';
const DONE_AS_A = 'the same file as in/a.wav (a hard link), already done: sent once as that';

function byInput(stdout: unknown): Record<string, Record<string, unknown>> {
  return Object.fromEntries(
    jsonLines(stdout)
      .filter((line) => typeof line.input === 'string')
      .map((line) => [line.input as string, line]),
  );
}

describe('vredact redact: hard links', () => {
  it('sends a file of two links once, never again on later runs, nor as a new link elsewhere; a copy is sent', async () => {
    const t = await setup();
    try {
      const a = await t.fixture('speech-8k-ulaw.wav', 'in/a.wav');
      await link(a, join(t.dir, 'in/c.wav'));
      await t.fixture('speech-16bit.wav', 'in/b.wav');

      const dry = await t.redact(['in', '-o', 'out', '--dry-run', '--json']);
      expect(dry.exitCode, String(dry.stderr)).toBe(0);
      expect(byInput(dry.stdout)['in/c.wav']).toMatchObject({ status: 'skipped', reason: SENT_AS_A });
      expect(byInput(dry.stdout)['in/a.wav']).toMatchObject({ status: 'would-send' });
      expect((await t.sandbox.stats()).uploads).toBe(0);

      const first = await t.redact(['in', '-o', 'out', '--json']);
      expect(first.exitCode, String(first.stderr)).toBe(0);
      const outcomes = byInput(first.stdout);
      expect(outcomes['in/a.wav']).toMatchObject({ status: 'done', output: 'out/a.wav' });
      expect(outcomes['in/b.wav']).toMatchObject({ status: 'done', output: 'out/b.wav' });
      expect(outcomes['in/c.wav']).toMatchObject({
        status: 'skipped',
        reason: SENT_AS_A,
        output: 'out/a.wav',
        sameAs: 'in/a.wav',
      });
      expect((await t.sandbox.stats()).uploads).toBe(2);
      expect((await listFiles(join(t.dir, 'out'))).filter((name) => !name.startsWith('.'))).toEqual([
        'a.wav',
        'b.wav',
      ]);

      // A script's line says why in its third field: the link has no output of its own.
      const again = await t.redact(['in', '-o', 'out']);
      expect(again.exitCode, String(again.stderr)).toBe(0);
      expect(String(again.stdout).split('\n')).toContain(`skipped\tin/c.wav\t${SENT_AS_A}`);
      expect((await t.sandbox.stats()).uploads).toBe(2);

      // Tonight's snapshot links yesterday's recording under a new path, in another folder.
      await mkdir(join(t.dir, 'snapshot'));
      await link(a, join(t.dir, 'snapshot/d.wav'));
      const dryLater = await t.redact(['snapshot', '-o', 'out', '--dry-run', '--json']);
      expect(byInput(dryLater.stdout)['snapshot/d.wav']).toMatchObject({
        status: 'skipped',
        reason: DONE_AS_A,
      });
      const later = await t.redact(['snapshot', '-o', 'out', '--json']);
      expect(later.exitCode, String(later.stderr)).toBe(0);
      // Done by an earlier run: where it wrote the output depends on that run's arguments, which the
      // journal does not keep, so no output rather than a wrong one.
      expect(byInput(later.stdout)['snapshot/d.wav']).toEqual({
        input: 'snapshot/d.wav',
        output: null,
        status: 'skipped',
        reason: DONE_AS_A,
        sameAs: 'in/a.wav',
      });
      expect((await t.sandbox.stats()).uploads).toBe(2);

      // A copy is another file, though its bytes are the same: it is sent.
      await copyFile(a, join(t.dir, 'snapshot/copy.wav'));
      const copied = await t.redact(['snapshot', '-o', 'out', '--json']);
      expect(copied.exitCode, String(copied.stderr)).toBe(0);
      expect(byInput(copied.stdout)['snapshot/copy.wav']).toMatchObject({ status: 'done' });
      expect(byInput(copied.stdout)['snapshot/d.wav']).toMatchObject({
        status: 'skipped',
        reason: DONE_AS_A,
      });
      expect((await t.sandbox.stats()).uploads).toBe(3);
    } finally {
      await t.cleanup();
    }
  });

  it("--json: a skipped link's line names the link sent and that link's output, which exists", async () => {
    const t = await setup();
    try {
      const a = await t.fixture('speech-16bit.wav', 'calls/a.wav');
      await mkdir(join(t.dir, 'calls/monday'));
      await link(a, join(t.dir, 'calls/monday/b.wav'));

      const run = await t.redact(['calls', '-o', 'out', '--json']);
      expect(run.exitCode, String(run.stderr)).toBe(0);
      const outcomes = byInput(run.stdout);
      expect(outcomes['calls/a.wav']).toEqual({ input: 'calls/a.wav', output: 'out/a.wav', status: 'done' });
      // Its own output (out/monday/b.wav) is never written: the line points at the one that is.
      expect(outcomes['calls/monday/b.wav']).toEqual({
        input: 'calls/monday/b.wav',
        output: 'out/a.wav',
        status: 'skipped',
        reason: 'the same file as calls/a.wav (a hard link): sent once as that',
        sameAs: 'calls/a.wav',
      });
      expect((await stat(join(t.dir, 'out/a.wav'))).isFile()).toBe(true);
      expect((await listFiles(join(t.dir, 'out'))).filter((name) => !name.startsWith('.'))).toEqual([
        'a.wav',
      ]);
      expect((await t.sandbox.stats()).uploads).toBe(1);

      // A dry run says the same, before anything is sent.
      const dry = await t.redact(['calls', '-o', 'fresh', '--dry-run', '--json']);
      expect(byInput(dry.stdout)['calls/monday/b.wav']).toMatchObject({
        output: 'fresh/a.wav',
        status: 'skipped',
        sameAs: 'calls/a.wav',
      });
    } finally {
      await t.cleanup();
    }
  });
});
