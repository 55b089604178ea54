/**
 * A run's outputs never become inputs of the next run, however they are reached: through a link in
 * the searched folder that leads into the output folder, or a folder or pattern named inside it.
 * Through the built binary against the sandbox, counting the uploads it took.
 */
import { mkdir, readFile, symlink, writeFile } from 'node:fs/promises';
import { fixture } from '../helpers/cli.js';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { jsonLines, listFiles, setup } from '../helpers/e2e.js';
import { makeWav } from '../helpers/mp3.js';

describe('vredact redact: its own outputs are never inputs', () => {
  it('a link in the searched folder that leads into the output folder is not walked for inputs', async () => {
    const t = await setup();
    try {
      await mkdir(join(t.dir, 'in'));
      await writeFile(join(t.dir, 'in', 'a.wav'), makeWav(0.5));
      const first = await t.redact(['in', '-o', 'out']);
      expect(first.exitCode).toBe(0);
      // A link to the outputs, as one keeps beside the recordings to find them.
      await symlink(join('..', 'out'), join(t.dir, 'in', 'redacted'));
      await writeFile(join(t.dir, 'in', 'b.wav'), makeWav(0.5));
      const run = await t.redact(['in', '-o', 'out', '--json']);
      // Before: out/a.wav, found as in/redacted/a.wav, was sent and saved as out/redacted/a.wav, and
      // in/a.wav was rejected, its output said to overwrite that input.
      expect(run.exitCode).toBe(0);
      const outcomes = jsonLines(run.stdout).filter((line) => line.input !== undefined);
      expect(Object.fromEntries(outcomes.map((line) => [line.input, line.status]))).toEqual({
        'in/a.wav': 'skipped',
        'in/b.wav': 'done',
      });
      expect((await t.sandbox.stats()).uploads).toBe(2);
      expect((await listFiles(join(t.dir, 'out'))).filter((path) => path.endsWith('.wav'))).toEqual([
        'a.wav',
        'b.wav',
      ]);
    } finally {
      await t.cleanup();
    }
  });

  it('a folder or a pattern named inside the output folder is rejected, nothing sent', async () => {
    const t = await setup();
    try {
      await mkdir(join(t.dir, 'calls', '2026'), { recursive: true });
      await writeFile(join(t.dir, 'calls', '2026', 'a.wav'), makeWav(0.5));
      expect((await t.redact(['calls', '-o', 'out'])).exitCode).toBe(0);
      await symlink('out', join(t.dir, 'same'));
      for (const arg of ['out/2026', 'same/2026', 'out/2026/*.wav', 'out/**/*.wav']) {
        const run = await t.redact([arg, '-o', 'out', '--json']);
        // Before: out/2026/a.wav, the output of calls/2026/a.wav, was redacted again into out/a.wav.
        expect(run.exitCode).toBe(1);
        expect(jsonLines(run.stdout)[0]).toMatchObject({
          input: arg,
          status: 'rejected',
          reason: expect.stringMatching(
            /inside the output folder, .*choose an output folder outside the inputs \(-o\)$/,
          ),
        });
      }
      expect((await t.sandbox.stats()).uploads).toBe(1);
      expect(await listFiles(join(t.dir, 'out'))).toEqual(['.vredact/journal.jsonl', '2026/a.wav']);
    } finally {
      await t.cleanup();
    }
  });

  it('a .wav named below the output folder is rejected, as outputs are there; an .mp3 there is still redacted', async () => {
    const t = await setup();
    try {
      await mkdir(join(t.dir, 'calls', '2026'), { recursive: true });
      await writeFile(join(t.dir, 'calls', '2026', 'a.wav'), makeWav(0.5));
      expect((await t.redact(['calls', '-o', 'out'])).exitCode).toBe(0);
      await writeFile(join(t.dir, 'out', '2026', 'b.mp3'), await readFile(fixture('speech-cbr.mp3')));
      const run = await t.redact(['out/2026/a.wav', 'out/2026/b.mp3', '-o', 'out', '--json']);
      const listed = await t.redact(['--files-from', '-', '-o', 'out', '--json'], {
        input: 'out/2026/a.wav\n',
      });
      for (const result of [run, listed]) {
        // Before: the output of calls/2026/a.wav was redacted again, into out/a.wav.
        expect(result.exitCode).toBe(1);
        expect(jsonLines(result.stdout)[0]).toMatchObject({
          input: 'out/2026/a.wav',
          status: 'rejected',
          reason: expect.stringMatching(
            /^it lies inside the output folder, where it may be an output of an earlier run/,
          ),
        });
      }
      // The .mp3 beside it is no output: redacted, as a named file in the output folder always was.
      expect(jsonLines(run.stdout)[1]).toMatchObject({ input: 'out/2026/b.mp3', status: 'done' });
      expect((await t.sandbox.stats()).uploads).toBe(2);
      expect((await listFiles(join(t.dir, 'out'))).filter((path) => path.endsWith('.wav'))).toEqual([
        '2026/a.wav',
        'b.wav',
      ]);
    } finally {
      await t.cleanup();
    }
  });
});
