/**
 * Journal compaction under crashes, by experiment: a run is killed at random (SIGKILL, or a first
 * Ctrl-C) partway through, leaving uploads cut short, jobs submitted and files done; its journal is
 * then given years of history before it (older failures and older versions of each file: more lines
 * than a run lets stand, so the next run compacts it), and the runs that follow are killed at random
 * small delays after they start, while they compact, or at random requests. After every run:
 *
 * - the journal under its name is the one before the run with lines appended, or its compaction
 *   with lines appended: lines of the old journal, byte for byte and in order, that give every input
 *   the same record and the same uploads cut short. Never a mix, never a half-written file;
 * - every input that was done stays done, and is never sent again;
 *
 * and in the end what any crash test checks (test/helpers/chaos-round.ts): a rewrite killed before
 * its rename left a temporary file that a later run swept.
 *
 * Deterministic by its seed, but for the timing of the kills. By hand:
 *   CHAOS_ROUNDS=100 CHAOS_SEED=1000 CHAOS_LOG=1 npx vitest run test/e2e/redact-chaos-compaction.test.ts
 * Build first: `npm run build`.
 */
import { mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { mulberry32 } from '../../src/audio/prng.js';
import { chaosConcurrency } from '../helpers/chaos.js';
import { COMPACT_SLACK_LINES, needsCompaction } from '../../src/redact/compact.js';
import { optionsFingerprint } from '../../src/redact/journal.js';
import { type JournalState, readJournal } from '../../src/redact/journal-read.js';
import {
  chooseKill,
  endingsOf,
  type Kill,
  type Lane,
  makeInputs,
  type Round,
  runLane,
  withRound,
} from '../helpers/chaos-round.js';
import { expectAllDone, expectNeverSentTwice } from '../helpers/chaos-checks.js';
import { decisive } from '../helpers/journal-records.js';

const ROUNDS = Number(process.env.CHAOS_ROUNDS ?? 2);
const FIRST_SEED = Number(process.env.CHAOS_SEED ?? 1);
/** Kills at random delays up to this, most of them while a run starts, reads and compacts. */
const EARLY_KILL_MS = 800;

const linesOf = (text: string) => text.split('\n').filter(Boolean);

/**
 * Years of history before the journal's own lines: for each input, older failures of this very file
 * and done lines of an older version of it (another size), more lines in all than compaction lets
 * stand. Lines of the journal itself keep the last word.
 */
async function withHistory(round: Round, journal: string, random: () => number): Promise<number> {
  const own = linesOf(await readFile(journal, 'utf8').catch(() => ''));
  const options =
    own.length > 0 ? (JSON.parse(own[0] as string) as { options: string }).options : optionsFingerprint({});
  const total = 2 * round.inputs.length + COMPACT_SLACK_LINES + 1 + Math.floor(random() * 20_000);
  const history: string[] = [];
  const first = Date.UTC(2024, 0, 1);
  for (let n = 0; history.length < total; n++) {
    const input = round.inputs[n % round.inputs.length];
    const path = join(round.dir, 'in', input?.rel ?? '');
    const { size, mtimeMs } = await stat(path);
    const at = new Date(first + n * 60_000).toISOString();
    const older = n % 3 === 0;
    history.push(
      JSON.stringify({
        v: 1,
        at,
        event: older ? 'done' : 'failed',
        input: path,
        size: older ? size + 2 : size,
        mtimeMs,
        options,
        output: input?.rel,
        ...(older
          ? { via: 'sync', bytes: size + 2 }
          : { reason: 'the service answered 500 (database error)' }),
      }),
    );
  }
  await writeFile(journal, [...history, ...own].map((line) => `${line}\n`).join(''), { mode: 0o600 });
  return history.length + own.length;
}

/**
 * Whether a rewrite of `journal` is under way and has written more than `bytes` (a lock's temporary
 * file, in the same folder, is a few hundred bytes), or another file has taken the journal's name
 * since the first look (its rewrite renamed over it; then whatever is under that name must be whole).
 */
function compacting(journal: string, bytes: number): () => Promise<boolean> {
  const folder = dirname(journal);
  let first: number | undefined;
  return async () => {
    const inode = (await stat(journal).catch(() => undefined))?.ino;
    first ??= inode;
    if (inode !== first) return true;
    for (const name of await readdir(folder)) {
      if (!name.endsWith('.vredact-partial')) continue;
      if (((await stat(join(folder, name)).catch(() => undefined))?.size ?? 0) > bytes) return true;
    }
    return false;
  };
}

/** What a run decides from a journal: each input's record and its uploads cut short. */
function decisionsOf(state: JournalState) {
  return new Map(
    [...state.latest.keys()].sort().map((input) => {
      const held = state.interrupted.get(input);
      return [
        input,
        {
          record: decisive(state.latest.get(input)),
          held: held && { ...held, before: decisive(held.before) },
        },
      ];
    }),
  );
}

async function readState(text: string): Promise<JournalState> {
  const dir = await mkdtemp(join(tmpdir(), 'vredact-chaos-journal-'));
  try {
    await writeFile(join(dir, 'journal.jsonl'), text);
    return await readJournal(join(dir, 'journal.jsonl'));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * Checks the journal after a run against the one before it (`before`): it starts with `before`
 * whole, or with a compaction of it: lines of `before` in their order, giving the same decisions.
 * Returns whether it was compacted.
 */
async function expectOldOrCompacted(before: string, after: string, context: string): Promise<boolean> {
  if (after.startsWith(before)) return false;
  const old = linesOf(before);
  const now = linesOf(after);
  let at = 0;
  let kept = 0;
  for (const line of now) {
    const found = old.indexOf(line, at);
    if (found < 0) break;
    at = found + 1;
    kept++;
  }
  const compacted = `${now.slice(0, kept).join('\n')}\n`;
  const [was, is] = [await readState(before), await readState(compacted)];
  expect(needsCompaction(was.lines, was.latest.size), `${context}: compacted, though it needed not be`).toBe(
    true,
  );
  expect(is.unreadable, `${context}: the compacted journal has unreadable lines`).toBe(0);
  expect(decisionsOf(is), `${context}: compaction changed what the journal says`).toEqual(decisionsOf(was));
  return true;
}

/** Inputs done by a run of this round (the history's done lines are of older versions of the files). */
const doneInputs = (state: JournalState) =>
  [...state.latest.keys()].filter((input) => {
    const record = state.latest.get(input);
    return record?.event === 'done' && record.outputSha256 !== undefined;
  });

async function round(seed: number): Promise<void> {
  const random = mulberry32(seed);
  const inputs = makeInputs(20 + Math.floor(random() * 21), random);
  const concurrency = chaosConcurrency(2 + Math.floor(random() * 5));
  const byte = (sha: string, at: number) => parseInt(sha.slice(2 * at, 2 * at + 2), 16);
  const options = {
    answer: (sha: string) => ((byte(sha, 0) & 1) === 0 ? ('sync' as const) : ('job' as const)),
    readsBeforeReady: (sha: string) => byte(sha, 1) % 2,
  };
  await withRound(seed, inputs, options, async (chaos, env) => {
    const journal = join(chaos.out, '.vredact', 'journal.jsonl');
    let before = '';
    let compactions = 0;
    let rewritesLeft = 0;
    const kill = (index: number, laneRandom: () => number): Kill => {
      // The first run is cut short partway through its uploads: the history's own lines.
      if (index === 0) {
        const signal = laneRandom() < 0.7 ? 'SIGKILL' : 'SIGINT';
        const atRequest = 1 + Math.floor(laneRandom() * inputs.length);
        return { trigger: { atRequest, moment: 'before-answer', signal } };
      }
      const roll = laneRandom();
      if (roll < 0.4) return { killWhen: compacting(journal, Math.floor(laneRandom() * 3) << 20) };
      if (roll < 0.7) return { killAfterMs: Math.floor(laneRandom() * EARLY_KILL_MS) };
      return chooseKill(laneRandom, inputs.length);
    };
    const lane: Lane = {
      name: 'redact',
      args: ['redact', 'in', '-o', 'out', '-c', String(concurrency), '-q'],
      env,
      owns: () => true,
      kill,
      beforeRun: async (index) => {
        if (index === 1) await withHistory(chaos, journal, random);
        before = await readFile(journal, 'utf8').catch(() => '');
      },
      afterRun: async (index, ending, context) => {
        if (index === 0) return;
        const after = await readFile(journal, 'utf8');
        if (await expectOldOrCompacted(before, after, context)) compactions++;
        // Nothing lost: what was done is done still.
        const [was, is] = [await readState(before), await readState(after)];
        for (const input of doneInputs(was)) {
          expect(is.latest.get(input)?.event, `${context}: ${input} was done`).toBe('done');
        }
        const state = await readdir(join(chaos.out, '.vredact'));
        if (ending.signal === 'SIGKILL' && state.some((name) => name.endsWith('.vredact-partial')))
          rewritesLeft++;
      },
    };
    await runLane(chaos, lane, seed);
    if (process.env.CHAOS_LOG) {
      console.log(
        `seed ${seed} ${inputs.length} inputs -c ${concurrency}: ${endingsOf(chaos)}; ${compactions} compacted, ${rewritesLeft} killed leaving a temporary file in .vredact; ${chaos.service.uploads.length} uploads, ${chaos.service.jobs.size} jobs`,
      );
    }
    await expectAllDone(chaos, env, ['journal.jsonl']);
    expectNeverSentTwice(chaos);
  });
}

describe('journal compaction: runs killed at random moments, while they compact too', () => {
  for (let seed = FIRST_SEED; seed < FIRST_SEED + ROUNDS; seed++) {
    it(`seed ${seed} (replay: CHAOS_SEED=${seed} CHAOS_ROUNDS=1)`, { timeout: 180_000 }, async () => {
      await round(seed);
    });
  }
});
