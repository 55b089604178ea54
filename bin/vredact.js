#!/usr/bin/env node
// Answers --version without loading the CLI, so it costs about a bare `node` start.
const [flag] = process.argv.slice(2);
if (process.argv.length === 3 && (flag === '--version' || flag === '-V')) {
  const { readFileSync } = await import('node:fs');
  const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
  process.stdout.write(`${pkg.version}\n`);
} else {
  const { main } = await import('../dist/cli.js');
  await main(process.argv);
}
