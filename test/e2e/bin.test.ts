import { readdir } from 'node:fs/promises';
import * as nodeModule from 'node:module';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { isolatedEnv, runCli, tempDir } from '../helpers/cli.js';

let work: Awaited<ReturnType<typeof tempDir>>;

beforeAll(async () => {
  work = await tempDir('vredact-bin-');
});
afterAll(async () => {
  await work?.cleanup();
});

/** The files in Node.js's default compile-cache folder under `tmp`, after a run with TMPDIR=tmp. */
async function compileCacheAfterRun(tmp: string, extra: Record<string, string> = {}): Promise<string[]> {
  const env = isolatedEnv(join(work.path, 'cfg'), { TMPDIR: tmp, ...extra });
  delete env.NODE_COMPILE_CACHE;
  const result = await runCli(['--help'], { env });
  expect(result.exitCode).toBe(0);
  const entries = await readdir(join(tmp, 'node-compile-cache'), { recursive: true }).catch(() => []);
  return entries.map(String);
}

const hasCompileCache =
  typeof (nodeModule as { enableCompileCache?: unknown }).enableCompileCache === 'function';

test.skipIf(process.platform === 'win32')(
  hasCompileCache
    ? "the binary keeps its compiled code in Node.js's default compile cache, unless NODE_DISABLE_COMPILE_CACHE is set"
    : 'on a Node.js without a compile cache, the binary runs and writes none',
  async () => {
    const cached = await compileCacheAfterRun(join(work.path, 'tmp-on'));
    if (hasCompileCache) expect(cached.length).toBeGreaterThan(0);
    else expect(cached).toEqual([]);
    expect(
      await compileCacheAfterRun(join(work.path, 'tmp-off'), { NODE_DISABLE_COMPILE_CACHE: '1' }),
    ).toEqual([]);
  },
);
