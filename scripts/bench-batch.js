#!/usr/bin/env node
/**
 * Speed and memory of `vredact redact` over many files: `npm run bench:batch` (after `npm run build`).
 *
 * Starts a stand-in of the service of its own (scripts/bench/stand-in.js: a fixed latency, the upload
 * echoed back) and runs the built binary against it:
 *   1. N one-second WAVs at -c 8 and -c 32: wall time against the ideal ⌈N/C⌉ × latency and against
 *      `xargs -P C curl` over the same files; client CPU per file; beside them three floors (bare
 *      uploads, the disk work alone, both in one process) and what creating a file costs where the
 *      outputs went.
 *   2. Many small WAVs: wall time and peak RSS of a first run, a re-run (all done) and a dry run,
 *      at two sizes, to show whether memory stays flat.
 *   3. `vredact status` and its manifest over journals of 100,000 and 1,000,000 inputs.
 *   4. `vredact download` of a job of 20,000 and 100,000 tiny files: wall time and peak RSS.
 *   5. A run with one interrupted upload, whose look-up lists 1,000 and 1,000,000 jobs.
 * Peak RSS and CPU come from GNU time (/usr/bin/time) when present; otherwise only wall times.
 * Every temporary folder and the server are removed at the end, or on Ctrl-C.
 *
 *   npm run bench:batch -- --quick          # a small smoke run (seconds)
 *   npm run bench:batch -- --only speed     # or --only memory, status, download, lookup
 *   options: --files 480 --latency 100 --runs 3 --concurrency 8,32 --many 100000 --medium 10000
 *            --many-concurrency 16 --many-latency 0 --status-inputs 100000,1000000
 *            --download-files 20000,100000 --lookup-jobs 1000,1000000 --scratch DIR
 */
import { spawnSync } from 'node:child_process';
import { existsSync, rmSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, rm } from 'node:fs/promises';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createCostUs } from './bench/create-cost.js';
import { downloadPart } from './bench/download-part.js';
import { cpuOf, createdAt, mb, perFile, s, verdict } from './bench/figures.js';
import { lookupPart } from './bench/lookup-part.js';
import { hasGnuTime, measure, median, running } from './bench/measure.js';
import { readOptions } from './bench/options.js';
import { startStandIn } from './bench/stand-in.js';
import { statusPart } from './bench/status-part.js';
import { writeWavFiles } from './bench/wav-files.js';

const BIN = fileURLToPath(new URL('../bin/vredact.cjs', import.meta.url));
const FLOOR = fileURLToPath(new URL('./bench/undici-floor.js', import.meta.url));
const DISK_FLOOR = fileURLToPath(new URL('./bench/disk-floor.js', import.meta.url));
const PROMISES_FLOOR = fileURLToPath(new URL('./bench/promises-floor.js', import.meta.url));
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

const { only, scratchBase, config } = readOptions();
if (!existsSync(new URL('../dist/cli.bundle.js', import.meta.url))) {
  console.error('bench:batch: dist/ is missing; run `npm run build` first.');
  process.exit(1);
}

const scratch = await mkdtemp(join(scratchBase ?? tmpdir(), 'vredact-bench-batch-'));
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

/**
 * One of the floors, a script of scripts/bench run as a child in the inputs' folder and measured as
 * vredact is: the bare undici loop (undici-floor.js, what vredact's own work adds to), the disk work
 * alone (disk-floor.js, what vredact's promises cost the disk) and both in one process with Node.js's
 * own http (promises-floor.js, what the promises cost any Node.js client). A floor that writes
 * outputs has the cost of creating a file in its output folder measured before the folder goes.
 */
async function floorRun(label, script, args, { inDir, outDir }) {
  const result = await measure(process.execPath, [script, ...args], {
    cwd: inDir,
    env: clientEnv(),
    scratch,
  });
  if (outDir !== undefined) {
    if (result.code === 0) result.createUs = createCostUs(outDir);
    await rm(outDir, { recursive: true, force: true });
  }
  if (result.code !== 0) {
    failures++;
    console.log(`  ! ${label}: exit ${result.code}: ${result.stderr.trim().split('\n')[0] ?? ''}`);
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
    const promisesFloor = [];
    for (let run = 0; run < runs; run++) {
      const floorOut = join(scratch, 'floor-out');
      const url = standIn.redactUrl;
      floor.push(await floorRun('undici floor', FLOOR, [url, String(c), ...names], { inDir }));
      const diskArgs = [floorOut, String(c), ...names];
      diskFloor.push(await floorRun('disk floor', DISK_FLOOR, diskArgs, { inDir, outDir: floorOut }));
      const bothArgs = [url, floorOut, String(c), ...names];
      promisesFloor.push(
        await floorRun('promises floor', PROMISES_FLOOR, bothArgs, { inDir, outDir: floorOut }),
      );
      const outDir = join(scratch, 'speed-out');
      const curlOut = join(scratch, 'curl-out');
      const result = await redact(`-c ${c} run ${run + 1}`, inDir, outDir, c, { uploads: files });
      // The folder its outputs went in (the inputs' first folder, mirrored).
      if (result.code === 0) result.createUs = createCostUs(join(outDir, dirname(names[0])));
      ours.push(result);
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
        `their fsyncs alone: CPU ${perFile(diskCpu, files)}${createdAt(diskFloor)}; the two floors together ` +
        `${perFile(floorCpu === undefined || diskCpu === undefined ? undefined : floorCpu + diskCpu, files)}`,
    );
    // Its wall time is no floor: it checks each file just before its upload, where vredact checks ahead.
    console.log(
      `  -c ${String(c).padEnd(3)} the floor of the promises, that disk work and the uploads in one process ` +
        `with Node.js's own http: CPU ${perFile(median(promisesFloor.map(cpuOf)), files)}${createdAt(promisesFloor)}`,
    );
    const wall = median(ours.map((r) => r.wallS));
    const curlWall = median(theirs.map((r) => r.wallS));
    const cpu = median(ours.map(cpuOf));
    if (cpu !== undefined) cpuPerFile.push({ c, ms: (cpu * 1000) / files });
    console.log(
      `  -c ${String(c).padEnd(3)} vredact ${s(wall)} = ${(wall / ideal).toFixed(2)}× the ideal ${s(ideal)} ` +
        `(target ≤ ${TARGETS.idealRatio}×: ${verdict(wall / ideal <= TARGETS.idealRatio)}); ` +
        `xargs -P ${c} curl ${s(curlWall)} (target: faster: ${verdict(wall < curlWall)}); ` +
        `vredact CPU ${s(cpu)}${createdAt(ours)}, peak RSS ${mb(median(ours.map((r) => r.maxRssMb)))}`,
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
  if (only === undefined || only === 'status') {
    failures += await statusPart({ bin: BIN, scratch, env: clientEnv(), inputs: config.statusInputs });
  }
  if (only === undefined || only === 'download') {
    const env = clientEnv();
    failures += await downloadPart({ bin: BIN, scratch, env, standIn, sizes: config.downloadFiles });
  }
  if (only === undefined || only === 'lookup') {
    failures += await lookupPart({ bin: BIN, scratch, env: clientEnv(), standIn, sizes: config.lookupJobs });
  }
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
