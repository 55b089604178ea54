#!/usr/bin/env node
/**
 * Speed and memory of `vredact redact` over many files: `npm run bench:batch` (after `npm run build`).
 *
 * Starts a stand-in of the service of its own (scripts/bench/stand-in.js: a fixed latency, the upload
 * echoed back) and runs the built binary against it:
 *   1. N one-second WAVs at -c 8 and -c 32: wall time against the ideal ⌈N/C⌉ × latency and against
 *      `xargs -P C curl` over the same files; client CPU per file.
 *   2. Many small WAVs: wall time and peak RSS of a first run, a re-run (all done) and a dry run,
 *      at two sizes, to show whether memory stays flat.
 *   3. `vredact status` and its manifest over journals of 100,000 and 1,000,000 inputs.
 * Peak RSS and CPU come from GNU time (/usr/bin/time) when present; otherwise only wall times.
 * Every temporary folder and the server are removed at the end, or on Ctrl-C.
 *
 *   npm run bench:batch -- --quick          # a small smoke run (seconds)
 *   npm run bench:batch -- --only speed     # or --only memory, --only status
 *   options: --files 480 --latency 100 --runs 3 --concurrency 8,32 --many 100000 --medium 10000
 *            --many-concurrency 16 --many-latency 0 --status-inputs 100000,1000000
 */
import { spawnSync } from 'node:child_process';
import { existsSync, rmSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, rm } from 'node:fs/promises';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { hasGnuTime, measure, median, running } from './bench/measure.js';
import { readOptions } from './bench/options.js';
import { startStandIn } from './bench/stand-in.js';
import { writeJournal } from './bench/journal-file.js';
import { writeWavFiles } from './bench/wav-files.js';

const BIN = fileURLToPath(new URL('../bin/vredact.js', import.meta.url));
const FLOOR = fileURLToPath(new URL('./bench/undici-floor.js', import.meta.url));
const DISK_FLOOR = fileURLToPath(new URL('./bench/disk-floor.js', import.meta.url));
const TOKEN = 'vr_bench_token';

/** What the redact engine must meet; printed beside the figures. */
const TARGETS = {
  idealRatio: 1.1,
  cpuMsPerFile: 1,
  peakRssMb: 150,
  rerunS: 3,
  dryRunS: 5,
  atFiles: 100_000,
};

const { only, config } = readOptions();
if (!existsSync(new URL('../dist/cli.bundle.js', import.meta.url))) {
  console.error('bench:batch: dist/ is missing; run `npm run build` first.');
  process.exit(1);
}

const scratch = await mkdtemp(join(tmpdir(), 'vredact-bench-batch-'));
const standIn = await startStandIn({ latencyMs: config.latencyMs });
let failures = 0;

function cleanUpNow() {
  for (const child of running) child.kill('SIGKILL');
  rmSync(scratch, { recursive: true, force: true });
}
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.once(signal, () => {
    cleanUpNow();
    process.exit(130);
  });
}

/**
 * The environment of the client: none of the user's own settings, the stand-in's URL. Nor
 * NODE_EXTRA_CA_CERTS: the stand-in is plain HTTP on loopback, and where that variable is set (as on
 * machines behind a TLS-inspecting proxy) every Node.js start parses a CA bundle, about 60 ms of CPU.
 */
function clientEnv() {
  const env = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (!key.startsWith('VREDACT_') && key !== 'NODE_EXTRA_CA_CERTS') env[key] = value;
  }
  return {
    ...env,
    VREDACT_BASE_URL: standIn.url,
    VREDACT_TOKEN: TOKEN,
    VREDACT_CONFIG_DIR: join(scratch, 'config'),
    NO_COLOR: '1',
  };
}

/** Runs `vredact redact` and checks it did what it must: exit 0 and exactly `uploads` files sent. */
async function redact(label, inDir, outDir, concurrency, { uploads, dryRun = false }) {
  const before = standIn.stats.uploads;
  const args = [BIN, 'redact', inDir, '-o', outDir, '-c', String(concurrency), '--quiet'];
  if (dryRun) args.push('--dry-run');
  const result = await measure(process.execPath, args, { cwd: scratch, env: clientEnv(), scratch });
  const sent = standIn.stats.uploads - before;
  if (result.code !== 0 || sent !== uploads) {
    failures++;
    console.log(
      `  ! ${label}: exit ${result.code}, ${sent} uploads (expected ${uploads})\n${result.stderr.trim().replace(/^/gm, '    ')}`,
    );
  }
  return result;
}

/** The same uploads by a bare undici loop (scripts/bench/undici-floor.js): what vredact's own work adds to. */
async function floorBatch(inDir, names, concurrency) {
  const result = await measure(process.execPath, [FLOOR, standIn.redactUrl, String(concurrency), ...names], {
    cwd: inDir,
    env: clientEnv(),
    scratch,
  });
  if (result.code !== 0) {
    failures++;
    console.log(`  ! undici floor: exit ${result.code}: ${result.stderr.trim().split('\n')[0] ?? ''}`);
  }
  return result;
}

/** The same files' disk work alone (scripts/bench/disk-floor.js): what vredact's promises cost the disk. */
async function diskFloorBatch(inDir, names, outDir, concurrency) {
  const result = await measure(process.execPath, [DISK_FLOOR, outDir, String(concurrency), ...names], {
    cwd: inDir,
    env: clientEnv(),
    scratch,
  });
  await rm(outDir, { recursive: true, force: true });
  if (result.code !== 0) {
    failures++;
    console.log(`  ! disk floor: exit ${result.code}: ${result.stderr.trim().split('\n')[0] ?? ''}`);
  }
  return result;
}

async function curlBatch(inDir, names, outDir, concurrency) {
  const folders = new Set(names.map((name) => name.split('/')[0]));
  for (const folder of folders) await mkdir(join(outDir, folder), { recursive: true });
  const args = ['-P', String(concurrency), '-I{}', 'curl', '-sS', '--fail'];
  args.push('-o', `${outDir}/{}`, '-H', `Authorization: Bearer ${TOKEN}`);
  args.push('-F', 'source_audio=@{}', standIn.redactUrl);
  const result = await measure('xargs', args, {
    cwd: inDir,
    env: process.env,
    input: `${names.join('\n')}\n`,
    scratch,
  });
  if (result.code !== 0) {
    failures++;
    console.log(`  ! xargs curl: exit ${result.code}: ${result.stderr.trim().split('\n')[0] ?? ''}`);
  }
  return result;
}

const s = (value) => (value === undefined ? '–' : `${value.toFixed(2)} s`);
const mb = (value) => (value === undefined ? '–' : `${Math.round(value)} MB`);
const verdict = (ok) => (ok === undefined ? 'not measured' : ok ? 'meets' : 'MISSES');
const perFile = (cpuS, files) =>
  cpuS === undefined ? '–' : `${((cpuS * 1000) / files).toFixed(2)} ms per file`;
const cpuOf = (run) => (run.userS === undefined ? undefined : run.userS + run.sysS);

async function speed() {
  const { files, latencyMs, runs } = config;
  console.log(
    `\n1. ${files} one-second 16 kHz 16-bit mono WAVs, stand-in latency ${latencyMs} ms, median of ${runs} run${runs === 1 ? '' : 's'}`,
  );
  const inDir = join(scratch, 'speed-in');
  const names = await writeWavFiles(inDir, files, 1);
  const cpuPerFile = [];
  for (const c of config.concurrencies) {
    const ideal = (Math.ceil(files / c) * latencyMs) / 1000;
    const ours = [];
    const theirs = [];
    const floor = [];
    const diskFloor = [];
    for (let run = 0; run < runs; run++) {
      floor.push(await floorBatch(inDir, names, c));
      diskFloor.push(await diskFloorBatch(inDir, names, join(scratch, 'disk-floor-out'), c));
      const outDir = join(scratch, 'speed-out');
      const curlOut = join(scratch, 'curl-out');
      ours.push(await redact(`-c ${c} run ${run + 1}`, inDir, outDir, c, { uploads: files }));
      theirs.push(await curlBatch(inDir, names, curlOut, c));
      await rm(outDir, { recursive: true, force: true });
      await rm(curlOut, { recursive: true, force: true });
    }
    const floorWall = median(floor.map((r) => r.wallS));
    const floorCpu = median(floor.map(cpuOf));
    console.log(
      `  -c ${String(c).padEnd(3)} the floor, a bare undici loop over the same uploads: ${s(floorWall)} = ` +
        `${(floorWall / ideal).toFixed(2)}× the ideal, CPU ${perFile(floorCpu, files)}`,
    );
    const diskCpu = median(diskFloor.map(cpuOf));
    console.log(
      `  -c ${String(c).padEnd(3)} the disk floor, the same files' checks, journal lines and outputs with ` +
        `their fsyncs alone: CPU ${perFile(diskCpu, files)}; the two floors together ` +
        `${perFile(floorCpu === undefined || diskCpu === undefined ? undefined : floorCpu + diskCpu, files)}`,
    );
    const wall = median(ours.map((r) => r.wallS));
    const curlWall = median(theirs.map((r) => r.wallS));
    const cpu = median(ours.map(cpuOf));
    if (cpu !== undefined) cpuPerFile.push({ c, ms: (cpu * 1000) / files });
    console.log(
      `  -c ${String(c).padEnd(3)} vredact ${s(wall)} = ${(wall / ideal).toFixed(2)}× the ideal ${s(ideal)} ` +
        `(target ≤ ${TARGETS.idealRatio}×: ${verdict(wall / ideal <= TARGETS.idealRatio)}); ` +
        `xargs -P ${c} curl ${s(curlWall)} (target: faster: ${verdict(wall < curlWall)}); ` +
        `vredact CPU ${s(cpu)}, peak RSS ${mb(median(ours.map((r) => r.maxRssMb)))}`,
    );
  }
  if (hasGnuTime) {
    const startup = await redact('one file', join(inDir, names[0]), join(scratch, 'one-out'), 1, {
      uploads: 1,
    });
    const base = cpuOf(startup);
    for (const { c, ms } of cpuPerFile) {
      const net = base === undefined ? undefined : ms - (base * 1000) / files;
      console.log(
        `  client CPU per file at -c ${c}: ${ms.toFixed(2)} ms (user+sys / ${files}), ` +
          `${net === undefined ? '–' : net.toFixed(2)} ms without the start-up (${s(base)} for one file) ` +
          `(target ≤ ${TARGETS.cpuMsPerFile} ms: ${verdict(ms <= TARGETS.cpuMsPerFile)})`,
      );
    }
  }
  await rm(inDir, { recursive: true, force: true });
}

async function memoryAt(files) {
  const inDir = join(scratch, `many-in-${files}`);
  const outDir = join(scratch, `many-out-${files}`);
  const made = performance.now();
  await writeWavFiles(inDir, files, 0.05);
  const madeS = (performance.now() - made) / 1000;
  const c = config.manyConcurrency;
  const first = await redact(`first run over ${files}`, inDir, outDir, c, { uploads: files });
  const rerun = await redact(`re-run over ${files}`, inDir, outDir, c, { uploads: 0 });
  const dry = await redact(`dry run over ${files}`, inDir, outDir, c, { uploads: 0, dryRun: true });
  const written = (await readdir(outDir, { recursive: true })).filter((name) => name.endsWith('.wav')).length;
  if (written !== files) {
    failures++;
    console.log(`  ! ${written} outputs written for ${files} inputs`);
  }
  const at = files === TARGETS.atFiles;
  const rss = (run) =>
    `${mb(run.maxRssMb)}${at ? ` (≤ ${TARGETS.peakRssMb} MB: ${verdict(run.maxRssMb === undefined ? undefined : run.maxRssMb <= TARGETS.peakRssMb)})` : ''}`;
  console.log(`  ${files} files (made in ${s(madeS)}):`);
  console.log(`    first run          ${s(first.wallS)}, peak RSS ${rss(first)}`);
  console.log(
    `    re-run (all done)  ${s(rerun.wallS)}${at ? ` (≤ ${TARGETS.rerunS} s: ${verdict(rerun.wallS <= TARGETS.rerunS)})` : ''}, peak RSS ${rss(rerun)}`,
  );
  console.log(
    `    dry run            ${s(dry.wallS)}${at ? ` (≤ ${TARGETS.dryRunS} s: ${verdict(dry.wallS <= TARGETS.dryRunS)})` : ''}, peak RSS ${rss(dry)}`,
  );
  await rm(inDir, { recursive: true, force: true });
  await rm(outDir, { recursive: true, force: true });
}

async function memory() {
  console.log(
    `\n2. small WAVs (0.05 s, 1,644 bytes), -c ${config.manyConcurrency}, stand-in latency ${config.manyLatencyMs} ms`,
  );
  standIn.latencyMs = config.manyLatencyMs;
  for (const files of [config.medium, config.many]) if (files > 0) await memoryAt(files);
}

/** `vredact status` and `--manifest` over a journal of many inputs: its memory is one record per input. */
async function status() {
  console.log('\n3. vredact status over a journal of two lines per input (99 % done)');
  for (const inputs of config.statusInputs) {
    const outDir = join(scratch, `status-${inputs}`);
    await writeJournal(outDir, inputs);
    const env = clientEnv();
    const run = (extra) =>
      measure(process.execPath, [BIN, 'status', '-o', outDir, ...extra], { cwd: scratch, env, scratch });
    const summary = await run([]);
    const manifest = await run(['--manifest']);
    for (const [label, result] of [
      ['status', summary],
      ['--manifest', manifest],
    ]) {
      if (result.code !== 0) {
        failures++;
        console.log(
          `  ! status ${label} over ${inputs} inputs: exit ${result.code}: ${result.stderr.trim()}`,
        );
      }
    }
    console.log(
      `  ${inputs} inputs: status ${s(summary.wallS)}, peak RSS ${mb(summary.maxRssMb)}; ` +
        `--manifest ${s(manifest.wallS)}, peak RSS ${mb(manifest.maxRssMb)}`,
    );
    await rm(outDir, { recursive: true, force: true });
  }
}

try {
  const version = spawnSync(process.execPath, [BIN, '--version'], { encoding: 'utf8' }).stdout.trim();
  console.log(
    `bench:batch: ${version}, Node ${process.version}, ${process.platform} ${process.arch}, ` +
      `${availableParallelism()} CPUs, load average ${loadavg()[0].toFixed(2)} at the start`,
  );
  console.log(
    hasGnuTime
      ? 'CPU and peak RSS of each client run from /usr/bin/time (GNU time; CPU includes child processes)'
      : 'no /usr/bin/time here: wall times only',
  );
  if (only === undefined || only === 'speed') await speed();
  if (only === undefined || only === 'memory') await memory();
  if (only === undefined || only === 'status') await status();
  console.log(
    failures === 0
      ? '\nbench:batch: every run did what it must'
      : `\nbench:batch: ${failures} run(s) went wrong (above)`,
  );
} finally {
  await standIn.close();
  await rm(scratch, { recursive: true, force: true });
}
process.exitCode = failures === 0 ? 0 : 1;
