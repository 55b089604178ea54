import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { execa, type Options, type ResultPromise } from 'execa';
import { afterEach, beforeEach } from 'vitest';

export const REPO_ROOT = join(import.meta.dirname, '..', '..');
export const BIN = join(REPO_ROOT, 'bin', 'vredact.cjs');
export const FIXTURES = join(REPO_ROOT, 'fixtures');
/** The path of a file in `fixtures/`. */
export const fixture = (name: string): string => join(FIXTURES, name);

/** A temporary folder, removed by `cleanup()`; every test gets its own so tests run in parallel. */
export async function tempDir(
  prefix = 'vredact-test-',
): Promise<{ path: string; cleanup: () => Promise<void> }> {
  const path = await mkdtemp(join(tmpdir(), prefix));
  return { path, cleanup: () => rm(path, { recursive: true, force: true }) };
}

/** A fresh temporary folder for each test of the calling file, removed after it: read `.path` inside a test. */
export function tempDirPerTest(prefix: string): { readonly path: string } {
  let current: Awaited<ReturnType<typeof tempDir>> | undefined;
  beforeEach(async () => {
    current = await tempDir(prefix);
  });
  afterEach(async () => {
    await current?.cleanup();
  });
  return {
    get path() {
      if (!current) throw new Error('tempDirPerTest: read .path inside a test');
      return current.path;
    },
  };
}

/** Creates each file (and its folders) under `root`, holding one byte. */
export async function touchFiles(root: string, ...paths: string[]): Promise<void> {
  for (const path of paths) {
    const full = join(root, path);
    await mkdir(dirname(full), { recursive: true });
    await writeFile(full, 'x');
  }
}

/** Variables of the developer's own that would change a run: proxies, colour, and sudo's user (trusted as an owner). */
const NOT_INHERITED = /^(VREDACT_.*|NO_COLOR|FORCE_COLOR|CLICOLOR|(HTTPS?|NO|ALL)_PROXY|SUDO_UID)$/i;

/**
 * The environment of a CLI run: nothing of the developer's own vredact settings or proxies leaks in,
 * and the config store lives in `configDir`.
 */
export function isolatedEnv(
  configDir: string,
  extra: Record<string, string | undefined> = {},
): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (!NOT_INHERITED.test(key)) env[key] = value;
  }
  return { ...env, VREDACT_CONFIG_DIR: configDir, ...extra };
}

/** Runs the built `vredact` binary; never throws on a non-zero exit, so tests assert on `exitCode`. */
export function runCli(args: string[], options: Options & { env: NodeJS.ProcessEnv }): ResultPromise {
  const stdin =
    options.input === undefined && options.inputFile === undefined ? { stdin: 'ignore' as const } : {};
  return execa('node', [BIN, ...args], { reject: false, extendEnv: false, ...stdin, ...options });
}

/** A running command's stderr as it comes: the text so far, each time it is asked. */
export function collectStderr(child: ResultPromise): () => string {
  let text = '';
  child.stderr?.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
  return () => text;
}
