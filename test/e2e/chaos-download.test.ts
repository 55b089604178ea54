/**
 * `vredact jobs list`, `jobs content` and `download` through the fault proxy of the chaos tests
 * (see chaos-redact.test.ts): each run gives the whole answer (exit 0), or exit 1 with one line of
 * error and nothing on stdout; `download` leaves only whole files, each the one a clean download
 * writes, and a re-run without faults fetches only the rest.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import {
  type ChaosBench,
  expectCleanOutput,
  expectNoTokenInFiles,
  FAULTY_RUN_FLAGS,
  faultLog,
  RATE,
  seeds,
  sha256,
  STALL_MS,
  startChaosBench,
  TEST_TIMEOUT_MS,
} from '../helpers/chaos.js';
import { isolatedEnv, runCli } from '../helpers/cli.js';
import { listFiles } from '../helpers/e2e.js';
import { startFaultProxy } from '../helpers/fault-proxy.js';

/** Inputs redacted (without faults) to make the jobs. */
const INPUTS = 6;
/** Jobs whose content is listed and downloaded under faults. */
const JOBS_DOWNLOADED = 3;

let bench: ChaosBench;
let clean: CleanState;
beforeAll(async () => {
  bench = await startChaosBench(INPUTS);
  clean = await cleanState();
});
afterAll(async () => {
  await bench?.cleanup();
});

interface CleanState {
  jobs: string[];
  /** Job id → its file names, sorted. */
  contents: Map<string, string[]>;
  /** Job id → file name → SHA-256 of the file. */
  files: Map<string, Map<string, string>>;
}

/** What `jobs list|content` and `download` must give whole, read without faults before the faults. */
async function cleanState(): Promise<CleanState> {
  const { sandbox, dir } = bench;
  const env = isolatedEnv(join(dir, 'config-clean'), {
    VREDACT_BASE_URL: sandbox.baseUrl,
    VREDACT_TOKEN: sandbox.token,
  });
  const redacted = await runCli(['redact', 'in', '-o', 'out-clean'], { env, cwd: dir });
  expect(redacted.exitCode, String(redacted.stderr)).toBe(0);
  const list = await runCli(['jobs', 'list', '--json'], { env });
  const jobs = (JSON.parse(String(list.stdout)) as Array<{ job_id: string }>).map((job) => job.job_id).sort();
  const contents = new Map<string, string[]>();
  const files = new Map<string, Map<string, string>>();
  for (const id of jobs.slice(0, JOBS_DOWNLOADED)) {
    const content = await runCli(['jobs', 'content', id, '--json'], { env });
    const names = (JSON.parse(String(content.stdout)) as Array<{ file_name: string }>).map(
      (item) => item.file_name,
    );
    contents.set(id, names.sort());
    const folder = join(dir, `clean-${id}`);
    const download = await runCli(['download', id, '-o', folder], { env });
    expect(download.exitCode, String(download.stderr)).toBe(0);
    const hashes = new Map<string, string>();
    for (const name of await listFiles(folder)) hashes.set(name, sha256(await readFile(join(folder, name))));
    files.set(id, hashes);
  }
  return { jobs, contents, files };
}

/** Exit 0 with the whole answer, or exit 1 with nothing on stdout and the error in one line. */
function expectWholeOrOneLine(what: string, result: Awaited<ReturnType<typeof runCli>>, whole: () => void) {
  expect(result.timedOut, what).toBe(false);
  expectCleanOutput(what, result, bench.sandbox.token);
  if (result.exitCode === 0) return whole();
  expect(result.exitCode, what).toBe(1);
  expect(String(result.stdout), what).toBe('');
  const errors = String(result.stderr)
    .split('\n')
    .filter((line) => line.startsWith('error:'));
  expect(errors, what).toHaveLength(1);
}

describe.each(seeds())('seed %i', (seed) => {
  test(
    'whole, or one line of error and no partial file; a clean re-run downloads only the rest',
    async () => {
      const { jobs, contents, files } = clean;
      const { sandbox, dir } = bench;
      const proxy = await startFaultProxy(sandbox.baseUrl, { seed, rate: RATE * 1.5, stallMs: STALL_MS });
      const options = bench.runOptions(proxy, join(dir, `config-${seed}`));
      const context = () => faultLog(seed, proxy);
      try {
        for (let round = 0; round < 3; round++) {
          const list = await runCli(['jobs', 'list', '--json', ...FAULTY_RUN_FLAGS], options);
          expectWholeOrOneLine(`jobs list\n${context()}\n${String(list.stderr)}`, list, () => {
            const ids = (JSON.parse(String(list.stdout)) as Array<{ job_id: string }>).map(
              (job) => job.job_id,
            );
            expect(ids.sort()).toEqual(jobs);
          });
        }
        const present = new Map<string, string[]>();
        for (const [id, names] of contents) {
          const content = await runCli(['jobs', 'content', id, '--json', ...FAULTY_RUN_FLAGS], options);
          expectWholeOrOneLine(`jobs content\n${context()}\n${String(content.stderr)}`, content, () => {
            const got = (JSON.parse(String(content.stdout)) as Array<{ file_name: string }>).map(
              (i) => i.file_name,
            );
            expect(got.sort()).toEqual(names);
          });
          const folder = join(dir, `dl-${seed}-${id}`);
          const download = await runCli(['download', id, '-o', folder, ...FAULTY_RUN_FLAGS], options);
          const what = `download\n${context()}\n${String(download.stderr)}`;
          expect(download.timedOut, what).toBe(false);
          expectCleanOutput('download', download, sandbox.token);
          expect([0, 1], what).toContain(download.exitCode);
          const written = await listFiles(folder);
          await expectSameFiles(folder, written, files.get(id), what);
          if (download.exitCode === 0) expect(written, what).toEqual(names);
          if (process.env.CHAOS_SEEDS)
            console.log(
              `seed ${seed}: download ${id}: exit ${download.exitCode}, ${written.length} of ${names.length}`,
            );
          present.set(id, written);
        }

        proxy.setRate(0);
        const before = proxy.requests.length;
        for (const [id, names] of contents) {
          const folder = join(dir, `dl-${seed}-${id}`);
          const again = await runCli(['download', id, '-o', folder], options);
          expect(again.exitCode, String(again.stderr)).toBe(0);
          expect(await listFiles(folder)).toEqual(names);
          await expectSameFiles(folder, names, files.get(id), context());
          const fetchedAgain = proxy.requests
            .slice(before)
            .filter((r) => r.url.startsWith('/files/'))
            .map((r) => decodeURIComponent((r.url.split('?')[0] ?? '').split('/').pop() ?? ''))
            .filter((name) => present.get(id)?.includes(name));
          expect(fetchedAgain, context()).toEqual([]);
          await expectNoTokenInFiles(folder, sandbox.token);
        }
      } finally {
        await proxy.close();
      }
    },
    TEST_TIMEOUT_MS,
  );
});

/** Every file listed is the one a clean download wrote: nothing partial under a file's name. */
async function expectSameFiles(
  folder: string,
  names: string[],
  hashes: Map<string, string> | undefined,
  context: string,
) {
  for (const name of names) {
    expect(hashes?.get(name), `${name}: not the file a clean download wrote\n${context}`).toBe(
      sha256(await readFile(join(folder, name))),
    );
  }
}
