import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { isolatedEnv, runCli, tempDir } from '../helpers/cli.js';
import { type SandboxProcess, startSandboxProcess } from '../helpers/sandbox.js';

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
    expect(result.exitCode).toBe(0);
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
      expect(result.exitCode).toBe(0);
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

  test('the helper reports a sandbox that cannot start, with its stderr', async () => {
    await expect(startSandboxProcess(['--speed', '0'])).rejects.toThrow(/exited early[\s\S]*--speed/);
  });
});
