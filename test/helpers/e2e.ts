/** Shared set-up of the end-to-end tests: a temp folder, a sandbox, and the built CLI pointed at it. */
import { copyFile, mkdir, open, readdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { execa, type Options } from 'execa';
import { SAME_SIGNAL_MS } from '../../src/interrupt.js';
import { BIN, FIXTURES, isolatedEnv, runCli, tempDir } from './cli.js';
import { type SandboxProcess, startSandboxProcess } from './sandbox.js';

export interface E2E {
  /** The working folder of the runs. */
  dir: string;
  sandbox: SandboxProcess;
  env: NodeJS.ProcessEnv;
  /** `vredact redact <args>` in `dir`. */
  redact(args: string[], options?: Options): ReturnType<typeof runCli>;
  /** Copies a fixture to `dir/<to>`. */
  fixture(name: string, to: string): Promise<string>;
  cleanup(): Promise<void>;
}

export async function setup(sandboxArgs: string[] = []): Promise<E2E> {
  const temp = await tempDir('vredact-e2e-');
  let sandbox: SandboxProcess;
  try {
    sandbox = await startSandboxProcess(sandboxArgs);
  } catch (error) {
    await temp.cleanup();
    throw error;
  }
  const env = isolatedEnv(join(temp.path, '.config'), {
    VREDACT_BASE_URL: sandbox.baseUrl,
    VREDACT_TOKEN: sandbox.token,
  });
  return {
    dir: temp.path,
    sandbox,
    env,
    redact: (args, options = {}) => runCli(['redact', ...args], { env, cwd: temp.path, ...options }),
    fixture: async (name, to) => {
      const dest = join(temp.path, to);
      await mkdir(dirname(dest), { recursive: true });
      await copyFile(join(FIXTURES, name), dest);
      return dest;
    },
    cleanup: async () => {
      await sandbox.stop();
      await temp.cleanup();
    },
  };
}

/** Whether a file starts with a RIFF/WAVE header. */
export async function isWav(path: string): Promise<boolean> {
  const handle = await open(path, 'r').catch(() => undefined);
  if (!handle) return false;
  try {
    const head = Buffer.alloc(12);
    const { bytesRead } = await handle.read(head, 0, 12, 0);
    return (
      bytesRead === 12 &&
      head.toString('latin1', 0, 4) === 'RIFF' &&
      head.toString('latin1', 8, 12) === 'WAVE'
    );
  } finally {
    await handle.close();
  }
}

/** Every file under `root`, relative, `/`-separated, sorted; hidden ones included. */
export async function listFiles(root: string): Promise<string[]> {
  const entries = await readdir(root, { recursive: true, withFileTypes: true }).catch(() => []);
  return entries
    .filter((entry) => entry.isFile())
    .map((entry) =>
      join(entry.parentPath, entry.name)
        .slice(root.length + 1)
        .split('\\')
        .join('/'),
    )
    .sort();
}

/** Parses `--json` output: every line must be a JSON object. */
export function jsonLines(stdout: unknown): Array<Record<string, unknown>> {
  return String(stdout)
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

/** The `error: ` lines of a command's stderr, sorted: files end in any order. */
export function errorLines(stderr: unknown): string[] {
  return String(stderr)
    .split('\n')
    .filter((line) => line.startsWith('error: '))
    .sort();
}

/** Waits until `check` holds (polling), or throws after `timeoutMs`: for set-up, never for assertions on timing. */
export async function until(check: () => Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error('condition not reached in time');
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/**
 * Waits as a person or a script does before a second interrupt meant as one: past the time within
 * which the same signal again is taken as the first sent twice (src/interrupt.ts).
 */
export async function pauseBeforeAnotherSignal(): Promise<void> {
  await new Promise((resolve) => setTimeout(resolve, 2 * SAME_SIGNAL_MS));
}

/**
 * Runs the built binary with its stdout's reading end closed before vredact writes anything (its
 * first write fails with EPIPE), as `| head` does once it has read enough.
 */
export async function runIntoGoneReader(
  args: string[],
  where: { cwd?: string; env?: NodeJS.ProcessEnv } = {},
): Promise<{ exitCode: number | undefined; stderr: string }> {
  const child = execa('node', [BIN, ...args], {
    ...(where.env && { env: where.env, extendEnv: false }),
    cwd: where.cwd,
    stdin: 'ignore',
    reject: false,
  });
  child.stdout.destroy();
  const result = await child;
  return { exitCode: result.exitCode, stderr: String(result.stderr) };
}
