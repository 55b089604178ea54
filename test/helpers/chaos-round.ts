/**
 * One round of a crash test (see test/e2e/redact-chaos*.test.ts): inputs, a chaos service, and one
 * or more lanes, each a `vredact redact` run killed at random moments (SIGKILL, or a first Ctrl-C)
 * and run again until it exits 0. Shards are lanes that go on at once. What must hold in the end is
 * in chaos-checks.ts.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { expect } from 'vitest';
import { mulberry32 } from '../../src/audio/prng.js';
import { pcm16MonoHeader } from '../../src/audio/wav-encode.js';
import {
  type ChaosOptions,
  type ChaosService,
  type ChaosTrigger,
  redactedOf,
  sha256,
  startChaosService,
} from './chaos-service.js';
import { isolatedEnv, runCli, tempDir } from './cli.js';
import { listFiles } from './e2e.js';

/** Runs after which a lane lets the next run finish, whatever its seed says. */
const MAX_SIGNALLED_RUNS = 6;
/** Runs after which a lane is taken for stuck: faults end after a few attempts of each input. */
const MAX_RUNS = 30;

export interface Input {
  /** Relative to the folder given to `redact`, which is also its output's path under `-o`. */
  rel: string;
  bytes: Buffer;
  sha: string;
}

/** Short WAVs of distinct bytes, in folders; two share a base name (`same.wav`). */
export function makeInputs(count: number, random: () => number): Input[] {
  const folders = ['', 'a/', 'b/', 'b/c/'];
  const rels = ['a/same.wav', 'b/same.wav'];
  for (let i = rels.length; i < count; i++) rels.push(`${folders[i % folders.length]}take-${i}.wav`);
  return rels.map((rel) => {
    const samples = 2000 + Math.floor(random() * 4000);
    const audio = Buffer.alloc(samples * 2);
    for (let i = 0; i < audio.length; i++) audio[i] = Math.floor(random() * 256);
    const bytes = Buffer.concat([pcm16MonoHeader(samples, 8000), audio]);
    return { rel, bytes, sha: sha256(bytes) };
  });
}

export async function writeInputs(root: string, inputs: readonly Input[]): Promise<void> {
  for (const input of inputs) {
    const path = join(root, input.rel);
    await mkdir(dirname(path), { recursive: true });
    await writeFile(path, input.bytes);
  }
}

export type Ending = { signal: NodeJS.Signals | undefined; exitCode: number | undefined };

export interface Kill {
  trigger?: ChaosTrigger;
  killAfterMs?: number;
  /** SIGKILL once this holds, looked at every few milliseconds while the run goes on. */
  killWhen?: () => Promise<boolean>;
  /** Signals sent once the trigger's has been, each `afterMs` after it (a second interrupt, a SIGKILL). */
  then?: { afterMs: number; signal: NodeJS.Signals }[];
}

/** What to do to a run: a signal at a request, a SIGKILL after a delay (up to `maxDelayMs`), or nothing. */
export function chooseKill(random: () => number, inputs: number, maxDelayMs = 1500): Kill {
  const roll = random();
  const atRequest = 1 + Math.floor(random() * inputs * 1.2);
  const moment = random() < 0.5 ? 'before-answer' : 'after-answer';
  if (roll < 0.45) return { trigger: { atRequest, moment, signal: 'SIGKILL' } };
  // A first Ctrl-C before an answer: the run is surely under way, its handler listening.
  if (roll < 0.7) return { trigger: { atRequest, moment: 'before-answer', signal: 'SIGINT' } };
  if (roll < 0.9) return { killAfterMs: Math.floor(random() * maxDelayMs) };
  return {};
}

/** Every output standing under `out` (not the journals' folder, not temporary files) and its bytes. */
export async function outputsIn(out: string): Promise<Map<string, Buffer>> {
  const outputs = new Map<string, Buffer>();
  for (const rel of await listFiles(out)) {
    if (rel.startsWith('.vredact/') || rel.endsWith('.vredact-partial')) continue;
    // Another lane may be writing beside it: a file is whole or absent, never read half-renamed.
    const bytes = await readFile(join(out, rel)).catch(() => undefined);
    if (bytes) outputs.set(rel, bytes);
  }
  return outputs;
}

/** Looks at `condition` until it holds (then `kill`s) or `stop` is called. */
function watchToKill(condition: () => Promise<boolean>, kill: () => void): { stop: () => Promise<void> } {
  let stopped = false;
  const watching = (async () => {
    while (!stopped) {
      if (await condition().catch(() => false)) {
        kill();
        return;
      }
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
  })();
  return {
    stop: async () => {
      stopped = true;
      await watching;
    },
  };
}

/** A sequence of runs with the same arguments, each run again until one exits 0. */
export interface Lane {
  name: string;
  /** Arguments of `vredact`, run in the round's folder. */
  args: string[];
  /** Without the token: each run gets its own. */
  env: NodeJS.ProcessEnv;
  /** Whether the lane may send this input (its shard's share). */
  owns: (input: Input) => boolean;
  /** Overrides the lane's random choice of how to kill its `index`-th run. */
  kill?: (index: number, random: () => number) => Kill;
  /** Called before the `index`-th run of the lane starts. */
  beforeRun?: (index: number) => Promise<void>;
  /** Called after each run, once the service has taken in its last requests. */
  afterRun?: (index: number, ending: Ending, context: string) => Promise<void>;
}

export interface RunRecord {
  lane: Lane;
  /** Inputs (by SHA-256) the run must not send. */
  settledBefore: ReadonlySet<string>;
  ending?: Ending;
}

export interface Round {
  seed: number;
  dir: string;
  out: string;
  inputs: readonly Input[];
  service: ChaosService;
  /** Every run of every lane, by its id at the service. */
  runs: Map<number, RunRecord>;
}

/** Runs a lane until a run exits 0, checking after each run what must hold even after a crash. */
export async function runLane(round: Round, lane: Lane, laneSeed: number): Promise<void> {
  const { service, inputs } = round;
  const random = mulberry32(laneSeed);
  const settled = new Set<string>();
  for (let index = 0; ; index++) {
    expect(index, `${lane.name} never exited 0 in ${MAX_RUNS} runs`).toBeLessThan(MAX_RUNS);
    await lane.beforeRun?.(index);
    const {
      trigger,
      killAfterMs,
      killWhen,
      then = [],
    }: Kill = index >= MAX_SIGNALLED_RUNS
      ? {}
      : (lane.kill?.(index, random) ?? chooseKill(random, inputs.length));
    const run = service.beginRun(trigger);
    const record: RunRecord = { lane, settledBefore: new Set(settled) };
    round.runs.set(run.id, record);
    const child = runCli(lane.args, { env: { ...lane.env, VREDACT_TOKEN: run.token }, cwd: round.dir });
    run.attach((signal) => child.kill(signal));
    const timer =
      killAfterMs === undefined ? undefined : setTimeout(() => run.signal('SIGKILL'), killAfterMs);
    const watching = killWhen && watchToKill(killWhen, () => run.signal('SIGKILL'));
    const followUps: NodeJS.Timeout[] = [];
    const following =
      then.length > 0 &&
      watchToKill(
        async () => run.signalled() !== undefined,
        () =>
          followUps.push(...then.map(({ afterMs, signal }) => setTimeout(() => run.signal(signal), afterMs))),
      );
    const result = await child;
    clearTimeout(timer);
    for (const followUp of followUps) clearTimeout(followUp);
    await watching?.stop();
    if (following) await following.stop();
    await run.quiet();
    const ending = { signal: result.signal, exitCode: result.exitCode };
    record.ending = ending;
    const context = `${lane.name} run ${index} (#${run.id} ${JSON.stringify({ trigger, killAfterMs, watched: killWhen && true, then, ending })}): ${String(result.stderr)}`;
    const uploads = service.uploads.filter((upload) => upload.run === run.id);
    if (ending.signal !== 'SIGKILL') {
      // A failure whose upload the service may have taken fails the file this run (exit 1), unless
      // the run's look for its job finds one: only an upload the service made a job of can be found.
      const unsure = uploads.filter((upload) => upload.fault !== undefined && upload.fault !== 'refused-503');
      const lost = unsure.some((upload) => upload.jobId === undefined);
      // A stop outranks an interrupt (exit 1, its reason on stderr): the first upload's connection
      // dropped with no HTTP answer yet is the documented stop for a port that is not the service.
      const stopped = unsure.length > 0 && String(result.stderr).includes('error: the batch stopped: ');
      const interrupted = stopped ? [130, 1] : [130];
      const expected =
        run.signalled() === 'SIGINT' || run.signalled() === 'SIGTERM'
          ? interrupted
          : lost
            ? [1]
            : unsure.length > 0
              ? [0, 1]
              : [0];
      expect(expected, context).toContain(ending.exitCode ?? (diedAfterLastWords(result) ? 130 : undefined));
      for (const upload of uploads) if (!upload.fault) settled.add(upload.inputSha256);
    }
    // Whole or absent, and its own result: after every run, killed or not.
    for (const [rel, bytes] of await outputsIn(round.out)) {
      const input = inputs.find((candidate) => candidate.rel === rel);
      expect(input, `${context}: ${rel} is no input's output`).toBeDefined();
      const own = input as Input;
      expect(bytes.equals(redactedOf(own.bytes)), `${context}: ${rel} is not its result`).toBe(true);
      if (lane.owns(own)) settled.add(own.sha);
    }
    for (const job of service.jobs.values()) settled.add(job.inputSha256);
    await lane.afterRun?.(index, ending, context);
    if (ending.exitCode === 0) break;
  }
}

/**
 * A later interrupt that comes after an interrupted run's last words, in the few milliseconds before
 * its process is gone, finds the signals let go and ends it by the signal (which a shell reports as
 * 130 for SIGINT, 143 for SIGTERM): everything was recorded by then, so it counts as the run's 130.
 */
function diedAfterLastWords(result: { signal?: NodeJS.Signals; stderr: unknown }): boolean {
  return (
    (result.signal === 'SIGINT' || result.signal === 'SIGTERM') &&
    String(result.stderr).includes('error: interrupted: run the same command again')
  );
}

/** How each lane's runs ended, for a log line: `SIGKILL 130 1 0`. */
export function endingsOf(round: Round, lane?: Lane): string {
  return [...round.runs.values()]
    .filter((record) => !lane || record.lane === lane)
    .map((record) => record.ending?.signal ?? record.ending?.exitCode)
    .join(' ');
}

/**
 * Sets up a round in a temporary folder (inputs under `in/`, outputs to `out/`) against a chaos
 * service, runs `body`, and removes both whatever happens. `env`: without a token (lanes give it).
 */
export async function withRound(
  seed: number,
  inputs: readonly Input[],
  options: ChaosOptions,
  body: (round: Round, env: NodeJS.ProcessEnv) => Promise<void>,
): Promise<void> {
  const service = await startChaosService(options);
  const temp = await tempDir('vredact-chaos-');
  try {
    await writeInputs(join(temp.path, 'in'), inputs);
    const env = isolatedEnv(join(temp.path, 'cfg'), { VREDACT_BASE_URL: service.baseUrl });
    const round: Round = {
      seed,
      dir: temp.path,
      out: join(temp.path, 'out'),
      inputs,
      service,
      runs: new Map(),
    };
    await body(round, env);
  } finally {
    await service.close();
    await temp.cleanup();
  }
}
