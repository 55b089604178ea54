import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, describe, expect, test } from 'vitest';
import { BIN, isolatedEnv, runCli, tempDir } from '../helpers/cli.js';
import { until } from '../helpers/e2e.js';
import { ANOTHER_PID_NAMESPACE, OUR_PROCESS_SPACE } from '../helpers/process-space.js';
import { type SandboxProcess, startSandboxProcess } from '../helpers/sandbox.js';

/**
 * `vredact sandbox` started as a script starts it in the background (no terminal, stdin closed),
 * with what it printed so far on each stream.
 */
function backgroundSandbox(args: string[], home: string) {
  const child = execa('node', [BIN, 'sandbox', '--port', '0', ...args], {
    env: isolatedEnv(home),
    extendEnv: false,
    reject: false,
    stdin: 'ignore',
  });
  const printed = { stdout: '', stderr: '' };
  child.stdout?.on('data', (chunk: Buffer) => (printed.stdout += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (printed.stderr += chunk.toString()));
  return { child, printed };
}

describe('vredact sandbox (built binary)', () => {
  const started: SandboxProcess[] = [];
  afterAll(async () => {
    await Promise.all(started.map((sandbox) => sandbox.stop()));
  });

  test('prints the export lines and serves the API until stopped', async () => {
    const sandbox = await startSandboxProcess();
    started.push(sandbox);
    expect(sandbox.baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(sandbox.token).toMatch(/^vr_test_/);

    const ok = await fetch(`${sandbox.baseUrl}/api/jobs`, {
      headers: { authorization: `Bearer ${sandbox.token}` },
    });
    expect(ok.status).toBe(200);
    expect(await ok.json()).toEqual({ jobs: [] });
    const denied = await fetch(`${sandbox.baseUrl}/api/jobs`);
    expect(denied.status).toBe(401);

    expect(await sandbox.requests()).toEqual([
      { listener: 'api', method: 'GET', path: '/api/jobs', hadAuthorization: true, status: 200 },
      { listener: 'api', method: 'GET', path: '/api/jobs', hadAuthorization: false, status: 401 },
    ]);
    await sandbox.queueFaults([{ status: 503 }]);
    const faulted = await fetch(`${sandbox.baseUrl}/api/jobs`, {
      headers: { authorization: `Bearer ${sandbox.token}` },
    });
    expect(faulted.status).toBe(503);
    expect(await sandbox.stats()).toMatchObject({ uploads: 0, faultsInjected: 1 });

    await sandbox.stop();
    const result = await sandbox.process;
    // Stopped by SIGTERM: interrupted, as the contract's exit codes say (and as redact does).
    expect(result.exitCode).toBe(130);
    await expect(fetch(`${sandbox.baseUrl}/api/jobs`)).rejects.toThrow();
  });

  test("starts whatever the user's own client settings are (a bad VREDACT_CONCURRENCY)", async () => {
    const sandbox = await startSandboxProcess([], { env: { VREDACT_CONCURRENCY: 'abc' } });
    started.push(sandbox);
    const ok = await fetch(`${sandbox.baseUrl}/api/jobs`, {
      headers: { authorization: `Bearer ${sandbox.token}` },
    });
    expect(ok.status).toBe(200);
  });

  test('exactly two lines on stdout, and a generated token when none is given', async () => {
    const dir = await tempDir();
    try {
      const child = runCli(['sandbox', '--port', '0'], { env: isolatedEnv(dir.path), buffer: true });
      let out = '';
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error('no export lines')), 20_000);
        child.stdout?.on('data', (chunk: Buffer) => {
          out += chunk.toString();
          if (out.split('\n').length > 2) {
            clearTimeout(timer);
            resolve();
          }
        });
      });
      child.kill('SIGINT');
      const result = await child;
      expect(result.exitCode).toBe(130);
      expect(result.stdout).toMatch(
        /^export VREDACT_BASE_URL=http:\/\/127\.0\.0\.1:\d+\nexport VREDACT_TOKEN=vr_sandbox_[0-9a-f]{32}$/,
      );
      expect(result.stderr).toContain('sandbox: API on');
    } finally {
      await dir.cleanup();
    }
  });

  test('a non-loopback host is a usage error (exit 2)', async () => {
    const dir = await tempDir();
    try {
      const result = await runCli(['sandbox', '--port', '0', '--host', '0.0.0.0'], {
        env: isolatedEnv(dir.path),
      });
      expect(result.exitCode).toBe(2);
      expect(result.stderr).toContain('loopback');
      expect(result.stdout).toBe('');
    } finally {
      await dir.cleanup();
    }
  });

  test('a --data-dir that is a file is a usage error (exit 2) naming it', async () => {
    const dir = await tempDir();
    try {
      const file = join(dir.path, 'not-a-folder');
      await writeFile(file, 'x');
      const result = await runCli(['sandbox', '--port', '0', '--data-dir', file], {
        env: isolatedEnv(dir.path),
      });
      expect(result.exitCode).toBe(2);
      expect(result.stderr).toContain('--data-dir');
      expect(result.stderr).toContain('not a folder');
      expect(result.stdout).toBe('');
    } finally {
      await dir.cleanup();
    }
  });

  test('a second sandbox on the same --data-dir refuses (exit 2); the folder is free again once the first stops', async () => {
    const dir = await tempDir();
    try {
      const data = join(dir.path, 'data');
      const first = await startSandboxProcess(['--data-dir', data]);
      started.push(first);
      const second = await runCli(['sandbox', '--port', '0', '--data-dir', data], {
        env: isolatedEnv(dir.path),
        timeout: 20_000, // before the lock, it ran on
      });
      expect(second.exitCode).toBe(2);
      expect(second.stderr).toMatch(
        new RegExp(
          `^error: --data-dir ${data}: another sandbox is using it \\(pid \\d+ on .+, started .+\\)\n`,
        ),
      );
      expect(second.stderr).toContain('hint: stop that sandbox, or give another --data-dir');
      expect(second.stdout).toBe('');
      // The first one still serves, its lock in place.
      expect((await first.stats()).jobs).toBe(0);
      expect(existsSync(join(data, 'sandbox.lock'))).toBe(true);

      await first.stop();
      expect(existsSync(join(data, 'sandbox.lock'))).toBe(false);
      const third = await startSandboxProcess(['--data-dir', data]);
      started.push(third);
      await third.stop();
    } finally {
      await dir.cleanup();
    }
  });

  test('Ctrl-C (SIGINT) stops it cleanly, exit 130: its port and its --data-dir are free again at once; SIGTERM likewise', async () => {
    const dir = await tempDir();
    try {
      const data = join(dir.path, 'data');
      const first = await startSandboxProcess(['--data-dir', data]);
      started.push(first);
      first.process.kill('SIGINT');
      expect((await first.process).exitCode).toBe(130);
      expect(existsSync(join(data, 'sandbox.lock'))).toBe(false);
      await expect(fetch(`${first.baseUrl}/api/jobs`)).rejects.toThrow();

      // A second sandbox takes the same port and the same data folder.
      const port = new URL(first.baseUrl).port;
      const second = await startSandboxProcess(['--data-dir', data, '--port', port]);
      started.push(second);
      expect(second.baseUrl).toBe(first.baseUrl);
      expect((await second.stats()).jobs).toBe(0);
      second.process.kill('SIGTERM');
      expect((await second.process).exitCode).toBe(130);
      expect(existsSync(join(data, 'sandbox.lock'))).toBe(false);
    } finally {
      await dir.cleanup();
    }
  });

  test('a fresh lock of another container with this host name is respected, whatever its pid: exit 2', async () => {
    const dir = await tempDir();
    try {
      const data = join(dir.path, 'data');
      await mkdir(data);
      // A pod's replacement keeps its host name; the pid means nothing in another pid namespace.
      const dead = (await execa('node', ['-e', 'process.stdout.write(String(process.pid))'])).stdout;
      const lock = JSON.stringify({
        pid: Number(dead),
        hostname: hostname(),
        ...OUR_PROCESS_SPACE,
        pidNamespace: ANOTHER_PID_NAMESPACE,
        startedAt: new Date().toISOString(),
        id: 'theirs',
        refreshMs: 30_000,
      });
      await writeFile(join(data, 'sandbox.lock'), lock);
      const refused = await runCli(['sandbox', '--port', '0', '--data-dir', data], {
        env: isolatedEnv(dir.path),
        timeout: 20_000,
      });
      expect(refused.exitCode).toBe(2);
      expect(refused.stderr).toContain(
        `error: --data-dir ${data}: another sandbox is using it (pid ${dead} on ${hostname()} in another container (or another boot), started `,
      );
      expect(refused.stderr).toContain(
        'hint: stop that sandbox, or give another --data-dir; a lock its sandbox stops refreshing is taken over after 10 min',
      );
      expect(refused.stdout).toBe('');
      expect(await readFile(join(data, 'sandbox.lock'), 'utf8')).toBe(lock);
    } finally {
      await dir.cleanup();
    }
  });

  test('run in the background as the quick start runs it, it says how to stop it there too: its pid, which stops it', async () => {
    const dir = await tempDir();
    try {
      // `vredact sandbox > sandbox.env 2> sandbox.log &`: no terminal to press Ctrl-C in.
      const { child, printed } = backgroundSandbox([], dir.path);
      await until(async () => printed.stderr.includes('sandbox: API on') || child.exitCode !== null);
      expect(printed.stderr).toContain(`Stop it with Ctrl-C, or kill ${child.pid}.`);
      expect(printed.stderr).not.toContain('Ctrl-C stops it');
      // What `kill <pid>` sends, to the pid it printed.
      child.kill('SIGTERM');
      expect((await child).exitCode).toBe(130);
    } finally {
      await dir.cleanup();
    }
  });

  test('a lock left by a sandbox that died on this host is taken over, with a warning', async () => {
    const dir = await tempDir();
    try {
      const data = join(dir.path, 'data');
      await mkdir(data);
      // A pid that was alive and is no more.
      const dead = (await execa('node', ['-e', 'process.stdout.write(String(process.pid))'])).stdout;
      // Written in this process space (this host name, boot and pid namespace): its pid is judged.
      const lock = {
        pid: Number(dead),
        hostname: hostname(),
        ...OUR_PROCESS_SPACE,
        startedAt: new Date().toISOString(),
        id: 'x',
        refreshMs: 30_000,
      };
      await writeFile(join(data, 'sandbox.lock'), JSON.stringify(lock));
      const { child, printed } = backgroundSandbox(['--data-dir', data], dir.path);
      await until(async () => printed.stdout.includes('export VREDACT_TOKEN=') || child.exitCode !== null);
      const owner = JSON.parse(await readFile(join(data, 'sandbox.lock'), 'utf8')) as { pid: number };
      expect(owner.pid).toBe(child.pid);
      child.kill('SIGTERM');
      const result = await child;
      expect(result.exitCode).toBe(130);
      expect(result.stderr).toContain(
        `warning: took over the lock of the data folder ${data}: its sandbox (pid ${dead}, started ${lock.startedAt}) ended without removing it`,
      );
      expect(existsSync(join(data, 'sandbox.lock'))).toBe(false);
    } finally {
      await dir.cleanup();
    }
  });

  test('its export lines give the shell that sources them the token exactly, whatever characters it holds', async () => {
    // `export VREDACT_TOKEN=tok$en;echo …` set the token to "tok" and ran the rest as a command.
    const dir = await tempDir();
    try {
      const token = `tok$en;touch$\{IFS}${join(dir.path, 'pwned')};it's\\`;
      const { child, printed } = backgroundSandbox(['--quiet', '--token', token], dir.path);
      await until(async () => printed.stdout.includes('export VREDACT_TOKEN=') || child.exitCode !== null);
      child.kill('SIGTERM');
      expect((await child).exitCode).toBe(130);
      const file = join(dir.path, 'sandbox.env');
      await writeFile(file, printed.stdout);
      const sourced = await execa('bash', ['-c', '. "$1" && printf %s "$VREDACT_TOKEN"', 'bash', file], {
        reject: false,
      });
      expect([sourced.exitCode, sourced.stdout, sourced.stderr]).toEqual([0, token, '']);
      expect(existsSync(join(dir.path, 'pwned'))).toBe(false);
    } finally {
      await dir.cleanup();
    }
  });

  test('the helper reports a sandbox that cannot start, with its stderr', async () => {
    await expect(startSandboxProcess(['--speed', '0'])).rejects.toThrow(/exited early[\s\S]*--speed/);
  });
});
