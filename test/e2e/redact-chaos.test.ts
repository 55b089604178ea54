/**
 * The promise to cron jobs, by experiment: kill `vredact redact` at random moments (SIGKILL, or a
 * first Ctrl-C), run it again until a run exits 0, then check that every input has exactly one whole,
 * verified output that is its own result, that nothing else is left beside the outputs, that the
 * journal and `status` say done, and that nothing was sent twice that vredact promises not to send
 * twice:
 *
 * - an upload that made a job is never followed by another upload of that input: the job is found
 *   by its upload name (this service lists every job, naming its upload) and collected;
 * - an input whose output stood after a run is never sent by a later run (a result saved before its
 *   done line was lost is checked and recorded done);
 * - an input sent by a run that ended by itself (exit 0, or 130 after a first Ctrl-C, which lets the
 *   uploads in flight finish and records them) is never sent by a later run;
 * - within one run, an input is sent once (this service never fails an upload).
 *
 * No more: a synchronous answer lost to a SIGKILL before its output was saved is sent again, as the
 * service keeps nothing to fetch.
 *
 * Each round is deterministic by its seed (a round's name says it; the interleaving of the processes
 * is not). The suite runs a few; by hand, run many:
 *   CHAOS_ROUNDS=200 CHAOS_SEED=1000 CHAOS_LOG=1 npx vitest run test/e2e/redact-chaos.test.ts
 * (CHAOS_LOG prints each round's runs: how each ended, uploads and jobs).
 * Build first: `npm run build`.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { mulberry32 } from '../../src/audio/prng.js';
import {
  type AnswerKind,
  type ChaosTrigger,
  redactedOf,
  sha256,
  startChaosService,
} from '../helpers/chaos-service.js';
import { isolatedEnv, runCli, tempDir } from '../helpers/cli.js';
import { listFiles } from '../helpers/e2e.js';
import { pcm16MonoHeader } from '../../src/audio/wav-encode.js';

const ROUNDS = Number(process.env.CHAOS_ROUNDS ?? 3);
const FIRST_SEED = Number(process.env.CHAOS_SEED ?? 1);
/** Runs after which a round lets the next run finish, whatever its seed says. */
const MAX_SIGNALLED_RUNS = 6;
const MODES = ['sync', 'job', 'mix'] as const;

interface Input {
  /** Relative to the folder given to `redact`, which is also its output's path under `-o`. */
  rel: string;
  bytes: Buffer;
  sha: string;
}

/** Short WAVs of distinct bytes, in folders; two share a base name (`same.wav`). */
function makeInputs(count: number, random: () => number): Input[] {
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

type Ending = { signal: NodeJS.Signals | undefined; exitCode: number | undefined };

/** What to do to a run: a signal at a request, a SIGKILL after a delay, or nothing. */
function chooseTrigger(
  random: () => number,
  inputs: number,
): { trigger?: ChaosTrigger; killAfterMs?: number } {
  const roll = random();
  const atRequest = 1 + Math.floor(random() * inputs * 1.2);
  const moment = random() < 0.5 ? 'before-answer' : 'after-answer';
  if (roll < 0.45) return { trigger: { atRequest, moment, signal: 'SIGKILL' } };
  // A first Ctrl-C before an answer: the run is surely under way, its handler listening.
  if (roll < 0.7) return { trigger: { atRequest, moment: 'before-answer', signal: 'SIGINT' } };
  if (roll < 0.9) return { killAfterMs: Math.floor(random() * 1500) };
  return {};
}

/** Every output standing under `out` (not the journal's folder, not temporary files) and its bytes. */
async function outputsIn(out: string): Promise<Map<string, Buffer>> {
  const outputs = new Map<string, Buffer>();
  for (const rel of await listFiles(out)) {
    if (rel.startsWith('.vredact/') || rel.endsWith('.vredact-partial')) continue;
    outputs.set(rel, await readFile(join(out, rel)));
  }
  return outputs;
}

async function lastJournalLines(out: string): Promise<Map<string, Record<string, unknown>>> {
  const last = new Map<string, Record<string, unknown>>();
  const text = await readFile(join(out, '.vredact', 'journal.jsonl'), 'utf8');
  for (const line of text.split('\n').filter(Boolean)) {
    const record = JSON.parse(line) as Record<string, unknown>;
    last.set(String(record.input), record);
  }
  return last;
}

async function round(seed: number): Promise<void> {
  const random = mulberry32(seed);
  const mode = MODES[seed % MODES.length] as (typeof MODES)[number];
  const count = 30 + Math.floor(random() * 31);
  const concurrency = 4 + Math.floor(random() * 5);
  const inputs = makeInputs(count, random);
  const answerOf = (sha: string): AnswerKind =>
    mode === 'mix' ? ((parseInt(sha.slice(0, 2), 16) & 1) === 0 ? 'sync' : 'job') : mode;
  const service = await startChaosService({
    answer: answerOf,
    readsBeforeReady: (sha) => parseInt(sha.slice(2, 4), 16) % 2,
  });
  const temp = await tempDir('vredact-chaos-');
  try {
    for (const input of inputs) {
      const path = join(temp.path, 'in', input.rel);
      await mkdir(dirname(path), { recursive: true });
      await writeFile(path, input.bytes);
    }
    const out = join(temp.path, 'out');
    const env = isolatedEnv(join(temp.path, 'cfg'), {
      VREDACT_BASE_URL: service.baseUrl,
      VREDACT_TOKEN: 'vr_test_chaos',
    });
    const endings: Ending[] = [];
    /** Inputs never to be sent again from the given run on (by SHA-256). */
    const settledBefore: Array<Set<string>> = [];
    const settled = new Set<string>();
    for (let run = 0; ; run++) {
      settledBefore.push(new Set(settled));
      const { trigger, killAfterMs } =
        run < MAX_SIGNALLED_RUNS ? chooseTrigger(random, count) : ({} as ReturnType<typeof chooseTrigger>);
      const child = runCli(['redact', 'in', '-o', 'out', '-c', String(concurrency), '-q'], {
        env,
        cwd: temp.path,
      });
      service.beginRun((signal) => child.kill(signal), trigger);
      const timer =
        killAfterMs === undefined ? undefined : setTimeout(() => service.signal('SIGKILL'), killAfterMs);
      const result = await child;
      clearTimeout(timer);
      await service.quiet();
      const ending = { signal: result.signal, exitCode: result.exitCode };
      endings.push(ending);
      const context = `run ${run} (${JSON.stringify({ trigger, killAfterMs, ending })}): ${String(result.stderr)}`;
      const sent = service.signalled();
      if (ending.signal !== 'SIGKILL') {
        expect(ending.exitCode, context).toBe(sent === 'SIGINT' ? 130 : 0);
        for (const upload of service.uploads) if (upload.run === run) settled.add(upload.inputSha256);
      }
      // Whole or absent, and its own result: after every run, killed or not.
      for (const [rel, bytes] of await outputsIn(out)) {
        const input = inputs.find((candidate) => candidate.rel === rel);
        expect(input, `${context}: ${rel} is no input's output`).toBeDefined();
        expect(bytes.equals(redactedOf((input as Input).bytes)), `${context}: ${rel} is not its result`).toBe(
          true,
        );
        settled.add((input as Input).sha);
      }
      for (const job of service.jobs.values()) settled.add(job.inputSha256);
      if (ending.exitCode === 0) break;
    }

    if (process.env.CHAOS_LOG) {
      const endedAs = endings.map((e) => e.signal ?? e.exitCode).join(' ');
      const jobs = service.jobs.size;
      console.log(
        `seed ${seed} ${mode} ${count} inputs -c ${concurrency}: ${endedAs}; ${service.uploads.length} uploads, ${jobs} jobs`,
      );
    }
    // Exactly one output per input, its own result, and nothing else beside them.
    const files = await listFiles(out);
    expect(files.filter((rel) => !rel.startsWith('.vredact/'))).toEqual(inputs.map((i) => i.rel).sort());
    expect(files.filter((rel) => rel.startsWith('.vredact/'))).toEqual(['.vredact/journal.jsonl']);
    for (const input of inputs) {
      expect((await readFile(join(out, input.rel))).equals(redactedOf(input.bytes)), input.rel).toBe(true);
    }

    // The journal's last word on each input is done, with the hashes of its input and output.
    const last = await lastJournalLines(out);
    expect(last.size).toBe(count);
    for (const input of inputs) {
      const record = last.get(join(temp.path, 'in', input.rel));
      expect(record, input.rel).toMatchObject({
        event: 'done',
        output: input.rel,
        inputSha256: input.sha,
        outputSha256: sha256(redactedOf(input.bytes)),
      });
    }
    const status = await runCli(['status', '-o', 'out', '--json'], { env, cwd: temp.path });
    expect(status.exitCode).toBe(0);
    const counts = (JSON.parse(String(status.stdout)) as { counts: Record<string, number> }).counts;
    expect(counts).toMatchObject({ done: count, total: count, pending: 0, failed: 0, uploading: 0 });

    // Never sent twice where vredact promises it.
    for (const input of inputs) {
      const uploads = service.uploads.filter((upload) => upload.inputSha256 === input.sha);
      expect(uploads.length, `${input.rel} was never sent`).toBeGreaterThan(0);
      const runs = uploads.map((upload) => upload.run);
      expect(new Set(runs).size, `${input.rel} was sent twice in one run: ${runs.join(', ')}`).toBe(
        runs.length,
      );
      const firstJob = uploads.findIndex((upload) => upload.answer === 'job');
      if (firstJob >= 0) {
        expect(firstJob, `${input.rel} was sent again after its upload made a job`).toBe(uploads.length - 1);
      }
      for (const upload of uploads) {
        expect(
          settledBefore[upload.run]?.has(input.sha),
          `${input.rel} was sent again in run ${upload.run} (${endings.map((e) => e.signal ?? e.exitCode).join(', ')})`,
        ).toBe(false);
      }
    }
  } finally {
    await service.close();
    await temp.cleanup();
  }
}

describe('vredact redact killed at random moments (SIGKILL, Ctrl-C), then run again until it exits 0', () => {
  for (let seed = FIRST_SEED; seed < FIRST_SEED + ROUNDS; seed++) {
    it(`seed ${seed} (replay: CHAOS_SEED=${seed} CHAOS_ROUNDS=1)`, { timeout: 180_000 }, async () => {
      await round(seed);
    });
  }
});
