import { readdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { execa } from 'execa';
import { expect, test } from 'vitest';
import { REPO_ROOT } from '../helpers/cli.js';

// A smoke run of the benchmark: it works end to end and cleans up. Its figures are not judged here.
test('bench:batch --quick runs every case, prints its figures and leaves no temporary folder', async () => {
  const leftovers = async () =>
    (await readdir(tmpdir())).filter((name) => name.startsWith('vredact-bench-batch-')).length;
  const before = await leftovers();
  const result = await execa(
    'node',
    [
      'scripts/bench-batch.js',
      '--quick',
      '--files',
      '16',
      '--concurrency',
      '4',
      '--medium',
      '0',
      '--many',
      '200',
      '--status-inputs',
      '200',
    ],
    { cwd: REPO_ROOT, reject: false, env: { NO_COLOR: '1' } },
  );
  expect(result.stdout).toContain('every run did what it must');
  expect(result.exitCode).toBe(0);
  expect(result.stdout).toMatch(/-c 4 +vredact .* the ideal .*xargs -P 4 curl/);
  expect(result.stdout).toMatch(/200 files/);
  expect(result.stdout).toMatch(/first run .*\n.*re-run \(all done\) .*\n.*dry run /);
  expect(result.stdout).toMatch(/200 inputs: status .* peak RSS .*; --manifest /);
  expect(await leftovers()).toBeLessThanOrEqual(before);
});
