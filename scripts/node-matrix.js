#!/usr/bin/env node
// `npm run test:node-matrix`: the vitest suite again on other Node.js majors (default 22 and 24),
// with binaries from the npm registry's `node` package (`npx -p node@24`), against the dist/ that
// `npm test` built. Lint, type-check and build are not repeated: they do not depend on the runtime.
// Prints one `node <v>: N passed, M failed (T s)` line per version, then the total line
// `N passed, M failed`; exits 1 when a test failed or a run did not finish.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';

const root = join(import.meta.dirname, '..');
const versions = process.argv.slice(2).length > 0 ? process.argv.slice(2) : ['22', '24'];
const vitest = join(root, 'node_modules', 'vitest', 'vitest.mjs');
const npx = process.platform === 'win32' ? 'npx.cmd' : 'npx';

if (!existsSync(join(root, 'dist', 'cli.bundle.js'))) {
  process.stderr.write('dist/ is missing: run `npm test` (or `npm run build`) first\n');
  process.exit(2);
}

/** Runs the suite on one Node.js major; resolves with its counts (undefined: no summary line). */
function runOn(version) {
  return new Promise((resolve) => {
    const started = Date.now();
    const child = spawn(npx, ['-y', '-p', `node@${version}`, 'node', vitest, 'run'], {
      cwd: root,
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let tail = '';
    child.stdout.on('data', (chunk) => {
      process.stdout.write(chunk);
      tail = (tail + chunk.toString('utf8')).slice(-4096);
    });
    child.on('close', (code) => {
      const lines = [...tail.matchAll(/^(\d+) passed, (\d+) failed/gm)];
      const last = lines[lines.length - 1];
      const seconds = Math.round((Date.now() - started) / 1000);
      resolve(last ? { passed: Number(last[1]), failed: Number(last[2]), seconds, code } : { seconds, code });
    });
  });
}

let passed = 0;
let failed = 0;
const report = [];
// One at a time: each run already uses every core.
for (const version of versions) {
  const result = await runOn(version);
  if (result.passed === undefined) {
    failed += 1; // a run that never printed its summary counts as one failure
    report.push(`node ${version}: no summary (exit ${result.code}) after ${result.seconds} s`);
  } else {
    passed += result.passed;
    // A run that exited non-zero failed even where its line counts no failed test.
    failed += result.failed > 0 || result.code === 0 ? result.failed : 1;
    report.push(`node ${version}: ${result.passed} passed, ${result.failed} failed (${result.seconds} s)`);
  }
}
process.stdout.write(`\n${report.join('\n')}\n${passed} passed, ${failed} failed\n`);
process.exitCode = failed > 0 ? 1 : 0;
