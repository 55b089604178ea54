/**
 * A `~` the shell leaves alone (after `=`, in quotes, in the config file) is the home folder, through
 * the built binary against the sandbox: `--out-dir=~/red` made a folder named `~` in the working
 * folder, which a newcomer then removes with `rm -rf ~`.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { jsonLines, listFiles, setup } from '../helpers/e2e.js';
import { makeWav } from '../helpers/mp3.js';

describe('a path that starts with ~', () => {
  it('-o, --out-dir=~/…, the config file and --files-from name the home folder, never a folder "~"', async () => {
    const t = await setup();
    try {
      const home = join(t.dir, 'home');
      const work = join(t.dir, 'work');
      await mkdir(home);
      await mkdir(work);
      await writeFile(join(work, 'a.wav'), makeWav(0.5));
      await writeFile(join(work, 'b.wav'), makeWav(0.5));
      await writeFile(join(home, 'list.txt'), 'b.wav\n');
      const env = { ...t.env, HOME: home };
      const run = (args: string[]) => runCli(args, { env, cwd: work });

      const flag = await run(['redact', 'a.wav', '--out-dir=~/red', '--json']);
      expect(flag.exitCode).toBe(0);
      expect(jsonLines(flag.stdout)[0]).toMatchObject({ status: 'done', output: join(home, 'red', 'a.wav') });
      expect(String((await run(['status', '-o', '~/red', '--json'])).stdout)).toContain('"done":1');

      expect((await run(['config', 'set', 'out-dir', '~/stored'])).exitCode).toBe(0);
      const stored = await run(['redact', '--files-from=~/list.txt', '--json']);
      expect(stored.exitCode).toBe(0);
      expect(jsonLines(stored.stdout)[0]).toMatchObject({
        input: 'b.wav',
        status: 'done',
        output: join(home, 'stored', 'b.wav'),
      });
      expect(String((await run(['config', 'get', 'out-dir'])).stdout).trim()).toBe(join(home, 'stored'));

      // Nothing was made in the working folder but what was there; `./~` still names a folder "~".
      expect(await listFiles(work)).toEqual(['a.wav', 'b.wav']);
      expect(await listFiles(join(home, 'red'))).toContain('a.wav');
      expect(await listFiles(join(home, 'stored'))).toContain('b.wav');
      const literal = await run(['redact', 'a.wav', '-o', './~', '--json']);
      expect(jsonLines(literal.stdout)[0]).toMatchObject({ status: 'done', output: '~/a.wav' });
      expect(await listFiles(join(work, '~'))).toContain('a.wav');
      expect((await t.sandbox.stats()).uploads).toBe(3);
    } finally {
      await t.cleanup();
    }
  });
});
