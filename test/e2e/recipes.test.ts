/**
 * The README's recipes, run as written where this machine allows: the text is read from the
 * README, and only the paths of the example machine are replaced by temporary ones.
 */
import { spawnSync } from 'node:child_process';
import { copyFile, mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';
import { describe, expect, test } from 'vitest';
import { BIN, FIXTURES, tempDirPerTest } from '../helpers/cli.js';
import { binDir, readmeBlock } from '../helpers/readme.js';
import { startSandboxProcess } from '../helpers/sandbox.js';

const work = tempDirPerTest('vredact-recipes-');

/** The environment file of the recipes, pointing at a sandbox. */
async function envFile(baseUrl: string, token: string): Promise<string> {
  const example = await readmeBlock('sh', '# /etc/vredact/vredact.env');
  const path = join(work.path, 'vredact.env');
  await writeFile(
    path,
    example
      .replace(/^VREDACT_BASE_URL=.*$/m, `VREDACT_BASE_URL=${baseUrl}`)
      .replace(/^VREDACT_TOKEN=.*$/m, `VREDACT_TOKEN=${token}`),
    { mode: 0o600 },
  );
  return path;
}

async function recordings(names: string[]): Promise<string> {
  const dir = join(work.path, 'recordings');
  await mkdir(dir);
  for (const name of names) await copyFile(join(FIXTURES, 'speech-16bit.wav'), join(dir, name));
  return dir;
}

const hasSystemdAnalyze = spawnSync('systemd-analyze', ['--version']).status === 0;

describe('README recipes', () => {
  test('cron: the crontab line runs under an empty environment and logs the exit code', async () => {
    const crontab = await readmeBlock('crontab', 'PATH=');
    const path = /^PATH=(.*)$/m.exec(crontab)?.[1] ?? '';
    const schedule = crontab.split('\n').find((line) => /^[\d*]/.test(line)) ?? '';
    const command = schedule.split(' ').slice(5).join(' ');
    expect(command).toContain('vredact redact');

    const sandbox = await startSandboxProcess();
    try {
      const bin = await binDir(work.path);
      const input = await recordings(['a.wav', 'b.wav']);
      const out = join(work.path, 'redacted');
      const log = join(work.path, 'log', 'redact.log');
      await mkdir(join(work.path, 'log'));
      const line = command
        .replaceAll('/etc/vredact/vredact.env', await envFile(sandbox.baseUrl, sandbox.token))
        .replaceAll('/srv/redacted', out)
        .replaceAll('/srv/recordings', input)
        .replaceAll('/var/log/vredact/redact.log', log);
      // What cron gives a job: HOME, LOGNAME, SHELL and the crontab's PATH, nothing else.
      const run = () =>
        execa(
          'env',
          [
            '-i',
            `HOME=${work.path}`,
            'LOGNAME=cron',
            'SHELL=/bin/sh',
            `PATH=${path.replace('/usr/local/bin', bin)}`,
            '/bin/sh',
            '-c',
            line,
          ],
          { cwd: work.path, reject: false },
        );
      const first = await run();
      expect(first.exitCode).toBe(0);
      expect((await readdir(out)).filter((name) => name.endsWith('.wav')).sort()).toEqual(['a.wav', 'b.wav']);
      // The second night finds nothing to do.
      expect((await run()).exitCode).toBe(0);
      const text = await readFile(log, 'utf8');
      expect(text.match(/^vredact exit 0 at /gm)).toHaveLength(2);
      // Under --quiet, --stats still closes each night with its counts, just before its exit code.
      expect(text.match(/^redacted \d+, .*\nvredact exit \d+ at /gm)).toEqual([
        expect.stringMatching(/^redacted 2, skipped 0 \(already done\), rejected 0, failed 0, pending 0\n/),
        expect.stringMatching(/^redacted 0, skipped 2 \(already done\), rejected 0, failed 0, pending 0\n/),
      ]);
      expect(text).not.toContain(sandbox.token);
      expect((await sandbox.stats()).uploads).toBe(2);
    } finally {
      await sandbox.stop();
    }
  });

  test('Kubernetes Indexed Job: every index takes its own share, and together they send each file once', async () => {
    const job = await readmeBlock('yaml', 'completionMode: Indexed');
    const completions = Number(/completions: (\d+)/.exec(job)?.[1]);
    const script = /args:\n\s+- (.*)$/m.exec(job)?.[1] ?? '';
    expect(script).toContain('JOB_COMPLETION_INDEX + 1');
    const sandbox = await startSandboxProcess();
    try {
      const names = Array.from({ length: 8 }, (_, i) => `call-${i}.wav`);
      const archive = await recordings(names);
      const out = join(work.path, 'redacted');
      const bin = await binDir(work.path);
      for (let index = 0; index < completions; index++) {
        const pod = await execa(
          'sh',
          ['-c', script.replaceAll('/archive', archive).replaceAll('/redacted', out)],
          {
            env: {
              PATH: `${bin}:/usr/bin:/bin`,
              HOME: work.path,
              JOB_COMPLETION_INDEX: String(index),
              VREDACT_BASE_URL: sandbox.baseUrl,
              VREDACT_TOKEN: sandbox.token,
            },
            extendEnv: false,
            reject: false,
          },
        );
        expect(pod.exitCode, String(pod.stderr)).toBe(0);
      }
      expect((await readdir(out)).filter((name) => name.endsWith('.wav')).sort()).toEqual(names);
      expect((await sandbox.stats()).uploads).toBe(names.length);
    } finally {
      await sandbox.stop();
    }
  });

  test('CI: the step that tries the pipeline against the sandbox runs as written, in one shell', async () => {
    const block = await readmeBlock('yaml', 'vredact sandbox --port 0');
    const script = block
      .split('\n')
      .filter((line) => /^\s{8}\S/.test(line))
      .map((line) => line.trim())
      .join('\n');
    expect(script).toContain('vredact redact recordings/');
    const bin = await binDir(work.path);
    await recordings(['a.wav', 'b.wav']);
    // Its own process group, so that the sandbox it leaves in the background is stopped with it.
    const step = execa('bash', ['-e', '-c', script], {
      cwd: work.path,
      env: { PATH: `${bin}:/usr/bin:/bin`, HOME: work.path },
      extendEnv: false,
      detached: true,
      reject: false,
    });
    try {
      const result = await step;
      expect(result.exitCode, String(result.stderr)).toBe(0);
      const lines = (await readFile(join(work.path, 'results.jsonl'), 'utf8')).trim().split('\n');
      expect(
        lines.map((line) => JSON.parse(line) as { status?: string }).filter((o) => o.status === 'done'),
      ).toHaveLength(2);
      expect(
        (await readdir(join(work.path, 'redacted'))).filter((name) => name.endsWith('.wav')).sort(),
      ).toEqual(['a.wav', 'b.wav']);
    } finally {
      if (step.pid !== undefined) {
        try {
          process.kill(-step.pid, 'SIGTERM');
        } catch {
          // the group has ended
        }
      }
    }
  });

  test.skipIf(!hasSystemdAnalyze)('systemd: the service and timer pass systemd-analyze verify', async () => {
    const service = await readmeBlock('ini', '# /etc/systemd/system/vredact.service');
    const timer = await readmeBlock('ini', '# /etc/systemd/system/vredact.timer');
    const dir = join(work.path, 'units');
    await mkdir(dir);
    await writeFile(
      join(dir, 'vredact.service'),
      service
        .replace('/usr/local/bin/vredact', BIN)
        .replace('/etc/vredact/vredact.env', await envFile('https://redaction.example.com', 'vr_unit_test')),
    );
    await writeFile(join(dir, 'vredact.timer'), timer);
    const verify = await execa(
      'systemd-analyze',
      ['verify', join(dir, 'vredact.service'), join(dir, 'vredact.timer')],
      {
        reject: false,
      },
    );
    expect(verify.exitCode, String(verify.stderr)).toBe(0);
    expect(String(verify.stderr)).not.toMatch(/vredact\.(service|timer)/);
  });
});
