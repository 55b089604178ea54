import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterEach, expect, test } from 'vitest';
import { REPO_ROOT } from '../helpers/cli.js';

let scratch: string | undefined;
afterEach(async () => {
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

// A smoke run of the benchmark: it works end to end and cleans up. Its figures are not judged here.
test('bench:batch --quick runs every case, prints its figures and leaves its scratch folder empty', async () => {
  scratch = await mkdtemp(join(tmpdir(), 'vredact-bench-test-'));
  const result = await execa(
    'node',
    [
      'scripts/bench-batch.js',
      '--quick',
      '--scratch',
      scratch,
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
      '--download-files',
      '200',
      '--lookup-jobs',
      '600',
    ],
    { cwd: REPO_ROOT, reject: false, env: { NO_COLOR: '1' } },
  );
  expect(result.stdout).toContain('every run did what it must');
  expect(result.exitCode).toBe(0);
  expect(result.stdout).toMatch(/-c 4 +vredact .* the ideal .*xargs -P 4 curl/);
  // Where GNU time is missing there is no CPU figure, and so no file-creation cost beside it.
  if (result.stdout.includes('CPU and peak RSS')) {
    expect(result.stdout).toMatch(/vredact CPU .* \(a file created in its output folder: \d+ µs\)/);
  }
  expect(result.stdout).toMatch(/200 files/);
  expect(result.stdout).toMatch(/first run .*\n.*re-run \(all done\) .*\n.*dry run /);
  expect(result.stdout).toMatch(/200 inputs: status .* peak RSS .*; --manifest /);
  expect(result.stdout).toMatch(/download of a job .*\n +200 files: .* peak RSS /);
  // The look-up of one interrupted upload read the 500 oldest of 600 recent jobs.
  expect(result.stdout).toMatch(/600 jobs listed, 600 of them recent: .* peak RSS .* \(500 read\)/);
  expect(await readdir(scratch)).toEqual([]);
});

test('bench:batch refuses a scratch folder that is not there, before it starts anything', async () => {
  scratch = await mkdtemp(join(tmpdir(), 'vredact-bench-test-'));
  const missing = join(scratch, 'missing');
  const result = await execa('node', ['scripts/bench-batch.js', '--quick', '--scratch', missing], {
    cwd: REPO_ROOT,
    reject: false,
    env: { NO_COLOR: '1' },
  });
  expect(result.exitCode).toBe(2);
  expect(result.stderr).toContain(`--scratch: no folder ${missing}`);
  expect(await readdir(scratch)).toEqual([]);
});
