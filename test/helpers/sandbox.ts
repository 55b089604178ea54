/**
 * Runs the built `vredact sandbox` as a child process for end-to-end tests:
 *
 *   const sandbox = await startSandboxProcess();
 *   try { ... runCli([...], { env: isolatedEnv(dir, { VREDACT_BASE_URL: sandbox.baseUrl, VREDACT_TOKEN: sandbox.token }) }) }
 *   finally { await sandbox.stop(); }
 *
 * The binary runs `dist/`: build first (`npm run build`).
 */
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa, type ResultPromise } from 'execa';
import type { FaultInput, RequestRecord, SandboxStats } from '../../src/sandbox/index.js';
import { BIN, isolatedEnv, REPO_ROOT } from './cli.js';

export type { FaultInput, RequestRecord, SandboxStats };

export interface SandboxProcess {
  /** `VREDACT_BASE_URL` as the sandbox printed it. */
  baseUrl: string;
  /** `VREDACT_TOKEN` as the sandbox printed it (the first `--token`). */
  token: string;
  /** Everything the sandbox wrote on stdout so far. */
  printed(): string;
  /** What the sandbox wrote on stderr so far (its last 16 KiB). */
  errors(): string;
  process: ResultPromise;
  /** Every request the sandbox received so far, on both listeners, in arrival order. */
  requests(): Promise<RequestRecord[]>;
  /** Forgets the requests received so far. */
  clearRequests(): Promise<void>;
  stats(): Promise<SandboxStats & { jobs: number }>;
  /** Queues answers for the next API (or, with `listener: 'files'`, file) requests. */
  queueFaults(list: FaultInput[]): Promise<void>;
  /** Holds the 202 of each asynchronous redaction this long after its job was made (0: no more). */
  holdAccepted(ms: number): Promise<void>;
  /** Stops the sandbox (SIGTERM, then SIGKILL after a grace period); safe to call twice. */
  stop(): Promise<void>;
}

export interface StartOptions {
  /** How long to wait for the export lines (default 20 s). */
  timeoutMs?: number;
  /** Extra environment variables for the child. */
  env?: Record<string, string | undefined>;
}

const running = new Set<ResultPromise>();
let exitHookInstalled = false;

/** Last resort: a test that forgot `stop()` must not leave a sandbox behind. */
function killAllOnExit(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.once('exit', () => {
    for (const child of running) child.kill('SIGKILL');
  });
}

const STDERR_KEPT = 16 * 1024;

/** The URL and token in the sandbox's stdout: its two export lines, or with `--json` its JSON line. */
function printedExports(stdout: string): { baseUrl: string; token: string } | undefined {
  // A value the shell would read otherwise is single-quoted (see src/commands/sandbox/export-lines.ts).
  const word = (quoted: string | undefined) =>
    quoted?.startsWith("'") ? quoted.slice(1, -1).replaceAll(`'\\''`, "'") : quoted;
  const baseUrl = word(/^export VREDACT_BASE_URL=(\S+)$/m.exec(stdout)?.[1]);
  const token = word(/^export VREDACT_TOKEN=(\S+)$/m.exec(stdout)?.[1]);
  if (baseUrl && token) return { baseUrl, token };
  if (!stdout.startsWith('{') || !stdout.includes('\n')) return undefined;
  const json = JSON.parse(stdout.slice(0, stdout.indexOf('\n'))) as { base_url?: string; token?: string };
  return json.base_url && json.token ? { baseUrl: json.base_url, token: json.token } : undefined;
}

export async function startSandboxProcess(
  extraArgs: string[] = [],
  options: StartOptions = {},
): Promise<SandboxProcess> {
  if (!existsSync(join(REPO_ROOT, 'dist', 'cli.bundle.js'))) {
    throw new Error('dist/cli.bundle.js is missing: build first with `npm run build`');
  }
  const timeoutMs = options.timeoutMs ?? 20_000;
  const token = `vr_test_${randomBytes(12).toString('hex')}`;
  const configDir = await mkdtemp(join(tmpdir(), 'vredact-sandbox-config-'));
  const child = execa('node', [BIN, 'sandbox', '--port', '0', '--token', token, '--quiet', ...extraArgs], {
    env: isolatedEnv(configDir, options.env ?? {}),
    extendEnv: false,
    stdin: 'ignore',
    buffer: false,
    reject: false,
    cleanup: true,
  });
  running.add(child);
  killAllOnExit();

  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString('utf8')).slice(-STDERR_KEPT);
  });
  let stdout = '';
  // Kept whole (two lines), and drained so the child never blocks on a full pipe.
  child.stdout?.on('data', (chunk: Buffer) => {
    stdout += chunk.toString('utf8');
  });
  let exited = false;
  const exit = child.then((result) => {
    exited = true;
    running.delete(child);
    return result;
  });

  let stopping: Promise<void> | undefined;
  const stop = () => {
    stopping ??= (async () => {
      if (!exited) {
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
        await exit;
        clearTimeout(timer);
      }
      await rm(configDir, { recursive: true, force: true });
    })();
    return stopping;
  };

  const exports = await new Promise<{ baseUrl: string; token: string }>((resolve, reject) => {
    const fail = (why: string) => {
      clearTimeout(timer);
      child.stdout?.off('data', onData);
      reject(
        new Error(
          `vredact sandbox ${why}\n--- stdout ---\n${stdout}\n--- stderr ---\n${stderr || '(empty)'}`,
        ),
      );
    };
    const onData = () => {
      const found = printedExports(stdout);
      if (found) {
        clearTimeout(timer);
        child.stdout?.off('data', onData);
        resolve(found);
      }
    };
    const timer = setTimeout(() => fail(`did not print its export lines within ${timeoutMs} ms`), timeoutMs);
    child.stdout?.on('data', onData);
    void exit.then((result) => fail(`exited early (exit code ${result.exitCode ?? result.signal})`));
  }).catch(async (error: unknown) => {
    await stop();
    throw error;
  });

  const control = async (method: string, path: string, body?: unknown): Promise<unknown> => {
    const response = await fetch(`${exports.baseUrl}/__sandbox/${path}`, {
      method,
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    if (!response.ok) throw new Error(`sandbox control ${method} ${path}: ${response.status} ${text}`);
    return JSON.parse(text);
  };

  return {
    baseUrl: exports.baseUrl,
    token: exports.token,
    printed: () => stdout,
    errors: () => stderr,
    process: child,
    requests: async () => (await control('GET', 'requests')) as RequestRecord[],
    clearRequests: async () => {
      await control('DELETE', 'requests');
    },
    stats: async () => (await control('GET', 'stats')) as SandboxStats & { jobs: number },
    queueFaults: async (list) => {
      await control('POST', 'faults', { next: list });
    },
    holdAccepted: async (ms) => {
      await control('POST', 'hold-accepted', { ms });
    },
    stop,
  };
}
