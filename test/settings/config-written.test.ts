import { execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { secureWrittenConfig } from '../../src/settings/config-owner.js';
import { tempDirPerTest } from '../helpers/cli.js';

const work = tempDirPerTest('vredact-config-written-');

it('makes the written file 0600 (a file made by hand may be wider)', async () => {
  const path = join(work.path, 'config.json');
  await writeFile(path, '{}', { mode: 0o644 });
  secureWrittenConfig(path);
  expect((await stat(path)).mode & 0o777).toBe(0o600);
});

it.skipIf(process.platform === 'win32' || process.getuid?.() !== 0)(
  "root's finishing touch on a FIFO swapped in for the config file does not wait for a writer",
  async () => {
    const fifo = join(work.path, 'config.json');
    execFileSync('mkfifo', ['-m', '644', fifo]);
    // A blocking open of the FIFO waits for a writer: this one comes after a while, and is let in
    // only if something holds the FIFO open for reading by then, which only a blocked open would.
    const valve = spawn(
      'sh',
      ['-c', 'sleep 3; timeout 2 sh -c \'exec 3>"$0"\' "$0" && echo let-in > "$0.valve"', fifo],
      { stdio: 'ignore' },
    );
    try {
      secureWrittenConfig(fifo);
    } finally {
      await once(valve, 'exit');
    }
    await expect(readFile(`${fifo}.valve`, 'utf8')).rejects.toThrow(/ENOENT/);
    expect((await stat(fifo)).mode & 0o777).toBe(0o644);
  },
);
