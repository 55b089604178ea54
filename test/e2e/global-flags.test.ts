/**
 * The contract's global flags are "valid with every command": each command of the tree, run with
 * arguments that make it do something cheap, takes each of them with the exit code and stdout it
 * has without it (`--json` aside, which makes data JSON).
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { fixture, isolatedEnv, runCli, tempDir } from '../helpers/cli.js';
import { startSandboxProcess, type SandboxProcess } from '../helpers/sandbox.js';

const OWN_TOKEN = 'vr_test_global_flags_own_0123456789';
const FLAGS = [['--json'], ['-q'], ['--verbose'], ['--no-color'], ['--timeout', '5'], ['--max-retries', '2']];

interface Row {
  words: (job: string) => string[];
  /** Standard input: `token` sends the sandbox's token. */
  input?: 'token';
  /** What `--json` does to stdout: data as JSON, nothing (nothing to report), or the same text (help). */
  json: 'data' | 'nothing' | 'same';
  /** `-q` leaves out redact's lines of files that need nothing, keeping the problems. */
  quietDropsLines?: boolean;
  /** Runs with a token of its own, so the jobs it makes stay out of the other rows' listings. */
  ownToken?: boolean;
}

/** Commands that run without a service, or against the file's sandbox. */
const ROWS: Record<string, Row> = {
  redact: {
    words: () => ['redact', '--dry-run', fixture('speech-8k-alaw.wav'), '-o', 'out'],
    json: 'data',
    quietDropsLines: true,
  },
  status: { words: () => ['status', '-o', 'out'], json: 'data' },
  download: { words: (job) => ['download', job, '-o', 'fetched', '--overwrite'], json: 'data' },
  'jobs list': { words: () => ['jobs', 'list'], json: 'data' },
  'jobs create': { words: () => ['jobs', 'create'], json: 'data', ownToken: true },
  'jobs content': { words: (job) => ['jobs', 'content', job], json: 'data' },
  login: { words: () => ['login', '--token-stdin'], input: 'token', json: 'nothing' },
  logout: { words: () => ['logout'], json: 'nothing' },
  'config set': { words: () => ['config', 'set', 'concurrency', '8'], json: 'nothing' },
  'config get': { words: () => ['config', 'get', 'concurrency'], json: 'data' },
  'config unset': { words: () => ['config', 'unset', 'gender'], json: 'nothing' },
  'config list': { words: () => ['config', 'list'], json: 'data' },
  'config path': { words: () => ['config', 'path'], json: 'data' },
  help: { words: () => ['help', 'exit-codes'], json: 'same' },
  completion: { words: () => ['completion', 'bash'], json: 'same' },
  // A group named without a subcommand shows its help, as `gh repo` does.
  'jobs (no subcommand)': { words: () => ['jobs'], json: 'same' },
  'config (no subcommand)': { words: () => ['config'], json: 'same' },
  '(no command)': { words: () => [], json: 'same' },
};

/**
 * Stdout's lines, sorted (download prints each file as it lands), with job ids made alike: `jobs
 * create` makes a new one each run.
 */
const JOB_ID = /\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/g;
const lines = (stdout: unknown) => String(stdout).replace(JOB_ID, '<id>').split('\n').filter(Boolean).sort();

/** JSON on stdout: one document, or one per line (redact's outcomes). */
function expectJson(stdout: string): void {
  expect(stdout).not.toBe('');
  try {
    JSON.parse(stdout);
  } catch {
    for (const line of stdout.split('\n').filter(Boolean)) JSON.parse(line);
  }
}

describe('every command takes every global flag', () => {
  let sandbox: SandboxProcess;
  let work: Awaited<ReturnType<typeof tempDir>>;
  let job = '';

  beforeAll(async () => {
    // Every redaction is asynchronous, so the batch below leaves a job with files to list and fetch.
    sandbox = await startSandboxProcess(['--sync-limit', '0', '--speed', '100', '--token', OWN_TOKEN]);
    work = await tempDir('vredact-global-flags-');
    const first = await run('set-up', ['redact', fixture('speech-8k-alaw.wav'), '-o', 'out']);
    expect(first.exitCode, String(first.stderr)).toBe(0);
    job = String((await run('set-up', ['jobs', 'list'])).stdout).split('\t')[0] ?? '';
    expect(job).not.toBe('');
  });
  afterAll(async () => {
    await sandbox?.stop();
    await work?.cleanup();
  });

  /** A run in the shared folder, with the config folder of its row, so rows that write settings stay apart. */
  function run(name: string, words: string[], row: Partial<Row> = {}) {
    const env = isolatedEnv(join(work.path, 'config', name.replace(/\W+/g, '-')), {
      VREDACT_BASE_URL: sandbox.baseUrl,
      VREDACT_TOKEN: row.ownToken ? OWN_TOKEN : sandbox.token,
    });
    const input = row.input === 'token' ? { input: `${sandbox.token}\n` } : {};
    return runCli(words, { env, cwd: work.path, ...input });
  }

  test.concurrent.each(Object.entries(ROWS))('%s', async (name, row) => {
    const words = row.words(job);
    const plain = await run(name, words, row);
    expect(plain.exitCode, String(plain.stderr)).toBe(0);
    for (const flag of FLAGS) {
      const result = await run(name, [...words, ...flag], row);
      const what = `${words.join(' ')} ${flag.join(' ')}: ${String(result.stderr)}`;
      expect(result.exitCode, what).toBe(plain.exitCode);
      const stdout = String(result.stdout);
      if (flag[0] === '--json' && row.json === 'data') expectJson(stdout);
      else if (flag[0] === '--json' && row.json === 'nothing') expect(stdout, what).toBe('');
      else if (flag[0] === '-q' && row.quietDropsLines)
        expect(lines(plain.stdout), what).toEqual(expect.arrayContaining(lines(stdout)));
      else expect(lines(stdout), what).toEqual(lines(plain.stdout));
    }
  });

  test('sandbox', async () => {
    for (const flag of [[], ...FLAGS]) {
      const started = await startSandboxProcess(flag);
      await started.stop();
      const result = await started.process;
      // Stopped by a signal, as every sandbox is.
      expect(result.exitCode, flag.join(' ')).toBe(130);
      expect(started.printed(), flag.join(' ')).toBe(
        flag[0] === '--json'
          ? `${JSON.stringify({ base_url: started.baseUrl, token: started.token })}\n`
          : `export VREDACT_BASE_URL=${started.baseUrl}\nexport VREDACT_TOKEN=${started.token}\n`,
      );
    }
  });
});
