import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';
import { expect, test } from 'vitest';
import { FIXTURES, isolatedEnv, REPO_ROOT, tempDirPerTest } from '../helpers/cli.js';
import { startSandboxProcess } from '../helpers/sandbox.js';

const work = tempDirPerTest('vredact-package-');

test(
  'the packed tarball installs globally without a build and redacts two fixtures',
  { timeout: 240_000 },
  async () => {
    // --ignore-scripts: dist/ is already built (npm test's pretest); prepack would rebuild it under
    // the feet of the tests running in parallel.
    const pack = await execa('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', work.path], {
      cwd: REPO_ROOT,
    });
    const [info] = JSON.parse(String(pack.stdout)) as Array<{
      filename: string;
      files: Array<{ path: string }>;
    }>;
    if (!info) throw new Error('npm pack printed no package');
    const files = info.files.map((file) => file.path);
    expect(files).toEqual(
      expect.arrayContaining([
        'LICENSE',
        'README.md',
        'package.json',
        'bin/vredact.cjs',
        'dist/cli.js',
        'dist/cli.bundle.js',
      ]),
    );
    expect(files.filter((path) => path.endsWith('.map'))).toEqual([]);
    expect(files.filter((path) => !/^(bin|dist)\/|^(LICENSE|README\.md|package\.json)$/.test(path))).toEqual(
      [],
    );
    const manifest = JSON.parse(await readFile(join(REPO_ROOT, 'package.json'), 'utf8')) as Record<
      string,
      unknown
    >;
    expect(manifest.repository).toEqual({ type: 'git', url: 'git+https://github.com/vredact/vredact.git' });
    expect(Object.keys(manifest.dependencies as object)).not.toContain('wavefile');

    const prefix = join(work.path, 'prefix');
    const install = await execa(
      'npm',
      [
        'install',
        '-g',
        '--prefix',
        prefix,
        '--prefer-offline',
        '--no-audit',
        '--no-fund',
        join(work.path, info.filename),
      ],
      { reject: false },
    );
    expect(install.exitCode, String(install.stderr)).toBe(0);
    const installed = join(prefix, 'lib', 'node_modules', 'vredact');
    // Runtime dependencies only: no TypeScript, no test libraries.
    for (const devOnly of ['typescript', 'vitest', 'wavefile', 'execa']) {
      expect(existsSync(join(installed, 'node_modules', devOnly)), devOnly).toBe(false);
    }
    const vredact = join(prefix, 'bin', 'vredact');
    const env = isolatedEnv(join(work.path, 'config'));
    const version = await execa(vredact, ['--version'], { env, extendEnv: false });
    expect(String(version.stdout)).toMatch(/^vredact \d+\.\d+\.\d+ \(node v\d+/);

    const sandbox = await startSandboxProcess();
    try {
      const out = join(work.path, 'out');
      const result = await execa(
        vredact,
        ['redact', join(FIXTURES, 'speech-16bit.wav'), join(FIXTURES, 'speech-cbr.mp3'), '-o', out],
        {
          env: { ...env, VREDACT_BASE_URL: sandbox.baseUrl, VREDACT_TOKEN: sandbox.token },
          extendEnv: false,
          reject: false,
          stdin: 'ignore',
        },
      );
      expect(result.exitCode, String(result.stderr)).toBe(0);
      for (const name of ['speech-16bit.wav', 'speech-cbr.wav']) {
        const bytes = await readFile(join(out, name));
        expect(bytes.toString('latin1', 0, 4) + bytes.toString('latin1', 8, 12)).toBe('RIFFWAVE');
      }
      expect((await sandbox.stats()).uploads).toBe(2);
    } finally {
      await sandbox.stop();
    }
  },
);
