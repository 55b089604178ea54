/**
 * A first interrupt of `vredact redact` while it plans, reads the journals or compacts its own,
 * through the built binary. Over 1,000,000 inputs each of these takes seconds, and before, a first
 * Ctrl-C there was obeyed only once the phase ended (and a compaction under way was put in place).
 * Now the run exits 130 from within the phase: nothing sent, decided or reported, the journal as it
 * was, no temporary file left.
 *
 * A test's few files go through these phases in milliseconds, so the signal cannot be timed into one:
 * the run is held at the start of the phase by a test-only knob (VREDACT_TEST_PAUSE, see
 * src/redact/test-pause.ts) until the signal comes, and the phase then starts interrupted. What shows
 * that a phase did not go on to its end: a journal whose last line is of a later format stops a read
 * that reaches it (exit 2); a plan that went on is followed by the lock, the journal's read and a
 * summary; a compaction that went on rewrites the journal.
 *
 * The deciding (a re-run skipping 1,000,000 inputs already done takes seconds too) is held once its
 * first input is decided, that input's upload in flight: the interrupt then ends the deciding, the
 * upload finishes and is journaled, and the inputs not decided get no outcome, only a count. The
 * settling of outputs the journal cannot vouch for, after the deciding, is held until a second
 * interrupt, which ends it: the inputs it held are left undecided too.
 */
import { copyFile, mkdir, readdir, readFile, realpath } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { collectStderr, isolatedEnv, runCli, tempDirPerTest } from '../helpers/cli.js';
import { jsonLines, pauseBeforeAnotherSignal, until } from '../helpers/e2e.js';
import { holdingService, uploads } from '../helpers/holding-service.js';
import { writeJournal } from '../helpers/journal.js';
import { sendJson, startScriptedServer, type ScriptedServer } from '../helpers/scripted-server.js';
import { speechInputs } from '../helpers/speech-files.js';

const dir = tempDirPerTest('vredact-e2e-interrupt-long-phases-');

let server: ScriptedServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** A line no version so far writes: a read of the journals that reaches it stops the run, exit 2. */
const LATER_FORMAT = JSON.stringify({ v: 2, at: '2026-11-21T02:00:00.000Z', event: 'done', input: '/x' });

/** `count` journal lines of the first input of `speechInputs`, each a failure to send it. */
async function linesOfFirstInput(count: number): Promise<Record<string, unknown>[]> {
  const input = await realpath(join(dir.path, 'in', 'call-0.wav'));
  return Array.from({ length: count }, (_, n) => ({
    at: new Date(Date.UTC(2026, 0, 1) + n * 1000).toISOString(),
    event: 'failed',
    input,
    output: 'call-0.wav',
    reason: 'the service answered 500',
  }));
}

/** The environment of a run against `server`, held at `point` (VREDACT_TEST_PAUSE) when given. */
function envFor(target: ScriptedServer, point?: string): NodeJS.ProcessEnv {
  return isolatedEnv(join(dir.path, 'config'), {
    VREDACT_BASE_URL: target.baseUrl,
    VREDACT_TOKEN: 'vr_test_long_phases',
    VREDACT_TEST_PAUSE: point,
  });
}

/**
 * Runs `redact in -o out --json` (and `extra`) held at `point`, interrupts it there once it says it
 * is held and `ready` holds, calls `interrupted`, and returns its result, with the journal before and
 * after.
 */
async function interruptedAt(
  point: string,
  extra: string[] = [],
  { ready = async () => true, interrupted = () => {}, twice = false } = {},
) {
  server ??= await startScriptedServer((_req, res) => sendJson(res, 500, { error: 500, message: 'no' }));
  const journal = join(dir.path, 'out', '.vredact', 'journal.jsonl');
  const before = await readFile(journal);
  const child = runCli(['redact', 'in', '-o', 'out', '--json', ...extra], {
    env: envFor(server, point),
    cwd: dir.path,
  });
  const stderr = collectStderr(child);
  const held = async () => stderr().includes(`paused at the ${point}`) && (await ready());
  await until(async () => (await held()) || child.exitCode !== null, 60_000);
  child.kill('SIGINT');
  interrupted();
  if (twice) {
    await until(async () => /^warning: interrupted/m.test(stderr()) || child.exitCode !== null, 60_000);
    await pauseBeforeAnotherSignal();
    child.kill('SIGINT');
  }
  const result = await child;
  const after = await readFile(journal);
  return {
    result,
    stderr: stderr(),
    journalSame: after.equals(before),
    /** The lines the run added to the journal (undefined when it changed the lines that were there). */
    journalAdded: after.subarray(0, before.length).equals(before)
      ? jsonLines(after.subarray(before.length))
      : undefined,
    stateFolder: (await readdir(join(dir.path, 'out', '.vredact'))).sort(),
  };
}

describe('a first interrupt while the run plans or reads the journals', () => {
  for (const dryRun of [false, true]) {
    const run = dryRun ? 'redact --dry-run' : 'redact';
    const extra = dryRun ? ['--dry-run'] : [];

    for (const [phase, as] of [
      ['plan', 'as it plans'],
      ['journal', 'as it reads the journals'],
    ] as const) {
      it(`${run} interrupted ${as}: exit 130, the plan and the journals not read, nothing reported`, async () => {
        await speechInputs(dir.path, 3);
        await writeJournal(join(dir.path, 'out'), [...(await linesOfFirstInput(1)), LATER_FORMAT]);
        const { result, stderr, journalSame, stateFolder } = await interruptedAt(phase, extra);
        expect(result.exitCode, stderr).toBe(130);
        // The journal's last line is of a later format: a read that went on to it would stop on it.
        expect(stderr).not.toMatch(/newer|later format/);
        // No file was decided: no outcome; a summary of none, saying why (the plan's inputs
        // undecided once it is made).
        const [summary, ...more] = jsonLines(result.stdout);
        expect(more).toEqual([]);
        const zero = dryRun
          ? { 'would-send': 0, 'would-collect': 0, skipped: 0, rejected: 0 }
          : { done: 0, skipped: 0, rejected: 0, failed: 0, pending: 0 };
        const undecided = phase === 'journal' ? { undecided: 3 } : {};
        expect(summary).toEqual({
          summary: { ...zero, ...undecided },
          ...(dryRun ? { dryRun: true } : {}),
          interrupted: true,
        });
        expect(server?.received).toEqual([]);
        expect(journalSame).toBe(true);
        expect(stateFolder, 'no lock, no temporary file').toEqual(['journal.jsonl']);
      }, 90_000);
    }
  }
});

describe('a first interrupt while the run compacts its journal', () => {
  it('leaves the journal as it was and no temporary file; exit 130, nothing sent', async () => {
    await speechInputs(dir.path, 1);
    // Far more lines than one input lets stand: the run compacts the journal before anything else.
    await writeJournal(join(dir.path, 'out'), await linesOfFirstInput(1_200));
    // Held once its copy's temporary file is made, before the kept lines are copied into it.
    const { result, stderr, journalSame, stateFolder } = await interruptedAt('compaction');
    expect(result.exitCode, stderr).toBe(130);
    expect(stderr).not.toMatch(/compacted the journal/);
    expect(journalSame, 'the journal is the one before the run, byte for byte').toBe(true);
    expect(stateFolder, 'the temporary file is removed, the lock released').toEqual(['journal.jsonl']);
    expect(jsonLines(result.stdout)).toEqual([
      {
        summary: { done: 0, skipped: 0, rejected: 0, failed: 0, pending: 0, undecided: 1 },
        interrupted: true,
      },
    ]);
    expect(server?.received).toEqual([]);
  }, 90_000);
});

describe('a first interrupt while the run decides its inputs', () => {
  /** `done` inputs redacted by a first run (journaled done, outputs there), and `in/a-new.wav`, decided first. */
  async function doneAndOneNew(done: number): Promise<void> {
    await speechInputs(dir.path, done);
    const first = await holdingService();
    first.release();
    try {
      const run = await runCli(['redact', 'in', '-o', 'out'], { env: envFor(first.server), cwd: dir.path });
      expect(run.exitCode, String(run.stderr)).toBe(0);
    } finally {
      await first.server.close();
    }
    await copyFile(join(dir.path, 'in', 'call-0.wav'), join(dir.path, 'in', 'a-new.wav'));
  }

  it('redact: the upload in flight finishes and is journaled; the rest undecided, nothing more sent; exit 130', async () => {
    await doneAndOneNew(12);
    const service = await holdingService();
    server = service.server;
    // Held once a-new.wav is decided, its upload held by the service: then the interrupt comes.
    const { result, stderr, journalAdded, stateFolder } = await interruptedAt('decide', [], {
      ready: async () => uploads(service.server) === 1,
      interrupted: service.release,
    });
    expect(result.exitCode, stderr).toBe(130);
    expect(stderr).toMatch(/^warning: interrupted: finishing the upload in flight/m);
    expect(uploads(service.server), 'nothing sent after the interrupt').toBe(1);
    // The journal: the lines there before, and those of the upload that was in flight, now done.
    expect(journalAdded?.map((line) => [String(line.input).split('/').pop(), line.event])).toEqual([
      ['a-new.wav', 'uploading'],
      ['a-new.wav', 'done'],
    ]);
    // Only a-new.wav was decided; the 12 done inputs were not looked at, and the summary says so.
    const lines = jsonLines(result.stdout);
    expect(lines.slice(0, -1).map((line) => [line.input, line.status])).toEqual([['in/a-new.wav', 'done']]);
    expect(lines.at(-1)).toEqual({
      summary: { done: 1, skipped: 0, rejected: 0, failed: 0, pending: 0, undecided: 12 },
      interrupted: true,
    });
    expect(stateFolder, 'the lock released').toEqual(['journal.jsonl']);
  }, 120_000);

  it('redact --dry-run: the inputs not decided are not reported, only counted; exit 130', async () => {
    await doneAndOneNew(12);
    const { result, stderr, journalSame } = await interruptedAt('decide', ['--dry-run']);
    expect(result.exitCode, stderr).toBe(130);
    expect(server?.received).toEqual([]);
    expect(journalSame).toBe(true);
    const lines = jsonLines(result.stdout);
    const summary = lines.at(-1)?.summary as Record<string, number>;
    // a-new.wav, decided before the interrupt, may or may not have been checked by then; no other input.
    const reported = lines.slice(0, -1).map((line) => line.input);
    expect(['in/a-new.wav'].slice(0, reported.length)).toEqual(reported);
    expect(summary.undecided).toBe(13 - reported.length);
    expect(summary.skipped).toBe(0);
  }, 120_000);
});

describe('a second interrupt while the run settles outputs the journal cannot vouch for', () => {
  it('ends the settling: the inputs it held are undecided, nothing sent or journaled; exit 130', async () => {
    await speechInputs(dir.path, 3);
    // Outputs already there that no journal line gives to their inputs (the user's own, say).
    await mkdir(join(dir.path, 'out'), { recursive: true });
    for (const name of await readdir(join(dir.path, 'in')))
      await copyFile(join(dir.path, 'in', name), join(dir.path, 'out', name));
    await writeJournal(join(dir.path, 'out'), []);
    const { result, stderr, journalSame, stateFolder } = await interruptedAt('settle', [], { twice: true });
    expect(result.exitCode, stderr).toBe(130);
    expect(stderr).toMatch(/^warning: no upload in flight to abort/m);
    expect(server?.received).toEqual([]);
    expect(jsonLines(result.stdout)).toEqual([
      {
        summary: { done: 0, skipped: 0, rejected: 0, failed: 0, pending: 0, undecided: 3 },
        interrupted: true,
      },
    ]);
    expect(journalSame).toBe(true);
    expect(stateFolder, 'the lock released').toEqual(['journal.jsonl']);
  }, 90_000);
});
