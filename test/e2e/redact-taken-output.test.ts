/**
 * An output place that an earlier run gave to another input: a named `x/a.wav` redacted to
 * `<out>/a.wav` one night, a named `y/a.wav` the next. Skipped as "an output vredact cannot vouch
 * for", y was never redacted and every run ended 0; it is rejected, naming the input that has it.
 * Build first: `npm run build`.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { jsonLines, setup } from '../helpers/e2e.js';
import { makeWav } from '../helpers/mp3.js';
import { expectFileBytes } from '../helpers/same-bytes.js';

it('rejects an input whose output place the journal gives to another input; skips one the user put there', async () => {
  const t = await setup();
  try {
    for (const folder of ['x', 'y', 'z']) await mkdir(join(t.dir, folder));
    await writeFile(join(t.dir, 'x', 'a.wav'), makeWav(1, 16000));
    await writeFile(join(t.dir, 'y', 'a.wav'), makeWav(2, 16000));
    await writeFile(join(t.dir, 'z', 'b.wav'), makeWav(1, 16000));
    expect((await t.redact(['x/a.wav', '-o', 'out'])).exitCode).toBe(0);
    const xOutput = await readFile(join(t.dir, 'out', 'a.wav'));
    await writeFile(join(t.dir, 'out', 'b.wav'), 'the user’s own file');
    const uploads = (await t.sandbox.stats()).uploads;

    for (const dryRun of [['--dry-run'], []]) {
      const result = await t.redact(['y/a.wav', 'z/b.wav', '-o', 'out', '--json', ...dryRun]);
      expect(result.exitCode).toBe(1);
      const lines = jsonLines(result.stdout);
      expect(lines.find((line) => line.input === 'y/a.wav')).toMatchObject({
        status: 'rejected',
        reason: expect.stringMatching(
          new RegExp(
            `its output out/a\\.wav is already another input's \\(${join(t.dir, 'x', 'a.wav')}, done `,
          ),
        ),
      });
      expect(lines.find((line) => line.input === 'z/b.wav')).toMatchObject({
        status: 'skipped',
        reason: 'the output already exists and is not in the journal (--overwrite redoes it)',
      });
    }
    expect((await t.sandbox.stats()).uploads).toBe(uploads);
    await expectFileBytes(join(t.dir, 'out', 'a.wav'), xOutput);
  } finally {
    await t.cleanup();
  }
});
