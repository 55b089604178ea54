#!/usr/bin/env node
// `npm run demo`: the whole product offline. Starts `vredact sandbox` on a free loopback port,
// redacts the speech fixtures into demo-output/, prints the summary, and stops the sandbox.
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';

const root = join(import.meta.dirname, '..');
const bin = join(root, 'bin', 'vredact.cjs');
const configDir = mkdtempSync(join(tmpdir(), 'vredact-demo-'));
const env = { ...process.env, VREDACT_CONFIG_DIR: configDir };
for (const key of ['VREDACT_BASE_URL', 'VREDACT_TOKEN']) delete env[key];

// Files up to 5 s come back synchronously, longer ones go through asynchronous jobs (sped up 20×).
const sandbox = spawn(
  process.execPath,
  [bin, 'sandbox', '--port', '0', '--quiet', '--sync-limit', '5', '--speed', '20'],
  {
    env,
    stdio: ['ignore', 'pipe', 'inherit'],
  },
);
const stop = () => {
  sandbox.kill('SIGTERM');
  rmSync(configDir, { recursive: true, force: true });
};

const exported = {};
for await (const line of createInterface({ input: sandbox.stdout })) {
  const match = /^export (VREDACT_\w+)=(.*)$/.exec(line);
  if (match) exported[match[1]] = match[2];
  if (exported.VREDACT_BASE_URL && exported.VREDACT_TOKEN) break;
}
if (!exported.VREDACT_BASE_URL) {
  console.error('the sandbox did not start');
  stop();
  process.exit(1);
}
console.error(`sandbox running at ${exported.VREDACT_BASE_URL}`);

const fixtures = join(root, 'fixtures');
const inputs = readdirSync(fixtures)
  .filter((name) => /^speech-.*\.(wav|mp3)$/.test(name))
  .map((name) => join(fixtures, name));
const outDir = join(root, 'demo-output');
const redact = spawn(
  process.execPath,
  [bin, 'redact', ...inputs, '-o', outDir, '--gender', 'opposite', '--overwrite'],
  { env: { ...env, ...exported }, stdio: 'inherit' },
);
const code = await new Promise((resolve) => redact.on('exit', (c) => resolve(c ?? 1)));
stop();
console.error(`\nredacted voices are in ${outDir} (exit ${code})`);
process.exit(code);
