/**
 * A done file whose modification time changed but whose bytes did not (restored from a backup, copied
 * without keeping times, touched), end to end: the built binary against the sandbox. It is hashed,
 * found the bytes its done line records, skipped and journaled with its new time, never sent again;
 * a file rewritten with other bytes of the same size is sent. Times are set, never waited for.
 */
import { readFile, stat, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { type E2E, jsonLines, setup } from '../helpers/e2e.js';

const TOUCHED = 'already done: unchanged bytes (modification time changed)';

async function journalLines(t: E2E): Promise<Array<Record<string, unknown>>> {
  const text = await readFile(join(t.dir, 'redacted', '.vredact', 'journal.jsonl'), 'utf8');
  return text
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

function linesOf(lines: Array<Record<string, unknown>>, name: string): Array<Record<string, unknown>> {
  return lines.filter((line) => String(line.input).endsWith(`/in/${name}`));
}

/** in/a.wav, in/b.wav, in/c.wav, dated an hour ago, redacted once. */
/** in/a.wav's row of `status --manifest --json`: the only one. */
async function manifestRowOfA(t: E2E): Promise<Record<string, unknown>> {
  const result = await runCli(['status', '-o', 'redacted', '--manifest', '--json'], {
    env: t.env,
    cwd: t.dir,
  });
  expect(result.exitCode).toBe(0);
  const rows = jsonLines(result.stdout).filter((row) => String(row.input_path).endsWith('/in/a.wav'));
  expect(rows).toHaveLength(1);
  return rows[0] as Record<string, unknown>;
}

async function threeDone(t: E2E): Promise<void> {
  const anHourAgo = new Date(Date.now() - 3600_000);
  for (const name of ['a.wav', 'b.wav', 'c.wav']) {
    await utimes(await t.fixture('speech-16bit.wav', `in/${name}`), anHourAgo, anHourAgo);
  }
  const first = await t.redact(['in']);
  expect(first.exitCode).toBe(0);
  expect((await t.sandbox.stats()).uploads).toBe(3);
}

describe('vredact redact: a done file touched without a change in its bytes', () => {
  it('is skipped and journaled with its new time; a file of other bytes of the same size is sent', async () => {
    const t = await setup();
    try {
      await threeDone(t);
      const a = join(t.dir, 'in', 'a.wav');
      const b = join(t.dir, 'in', 'b.wav');
      const aBefore = await readFile(a);
      const later = new Date(Date.now() - 1800_000);
      await utimes(a, later, later);
      // Other bytes, the same size: the last sample changed.
      const bytes = await readFile(b);
      bytes.writeUInt8(bytes.readUInt8(bytes.length - 1) ^ 0x5a, bytes.length - 1);
      await writeFile(b, bytes);
      await utimes(b, later, later);
      const journalBefore = await journalLines(t);

      const second = await t.redact(['in', '--json']);
      expect(second.exitCode).toBe(0);
      const byInput = Object.fromEntries(jsonLines(second.stdout).map((line) => [line.input, line]));
      expect(byInput['in/a.wav']).toEqual({
        input: 'in/a.wav',
        output: 'redacted/a.wav',
        status: 'skipped',
        reason: TOUCHED,
      });
      expect(byInput['in/b.wav']).toMatchObject({ status: 'done' });
      expect(byInput['in/c.wav']).toMatchObject({ status: 'skipped', reason: 'already done' });
      expect((await t.sandbox.stats()).uploads).toBe(4);
      // An input is never modified.
      expect(await readFile(a)).toEqual(aBefore);

      // a's new done line keeps its first one's record, with the new time, and when it was done.
      const journal = await journalLines(t);
      const aFirst = linesOf(journalBefore, 'a.wav').at(-1);
      expect(aFirst?.event).toBe('done');
      const aLines = linesOf(journal, 'a.wav');
      // One line more: the done line again, no upload's.
      expect(aLines).toHaveLength(linesOf(journalBefore, 'a.wav').length + 1);
      const { at: _firstAt, mtimeMs: _firstTime, ...kept } = aFirst as Record<string, unknown>;
      const aNew = aLines.at(-1);
      expect(aNew).toEqual({
        ...kept,
        at: aNew?.at,
        doneAt: aFirst?.at,
        mtimeMs: (await stat(a)).mtimeMs,
      });
      expect(aNew?.mtimeMs).not.toBe(aFirst?.mtimeMs);
      expect(aNew?.inputSha256).toMatch(/^[0-9a-f]{64}$/);

      // The third run skips a by its size and time alone: no upload, no line for it.
      const third = await t.redact(['in', '--json']);
      expect(third.exitCode).toBe(0);
      const files = jsonLines(third.stdout).filter((line) => line.input !== undefined);
      expect(files.map((line) => [line.status, line.reason])).toEqual(
        Array.from({ length: 3 }, () => ['skipped', 'already done']),
      );
      expect((await t.sandbox.stats()).uploads).toBe(4);
      expect(await journalLines(t)).toEqual(journal);
    } finally {
      await t.cleanup();
    }
  });

  it('--dry-run hashes it and says it is skipped; the manifest keeps its record', async () => {
    const t = await setup();
    try {
      await threeDone(t);
      const manifest = () => manifestRowOfA(t);
      const rowBefore = await manifest();
      const a = join(t.dir, 'in', 'a.wav');
      const later = new Date(Date.now() - 1800_000);
      await utimes(a, later, later);
      const journalBefore = await journalLines(t);

      const dry = await t.redact(['in', '--dry-run', '--json']);
      expect(dry.exitCode).toBe(0);
      const planned = Object.fromEntries(jsonLines(dry.stdout).map((line) => [line.input, line]));
      expect(planned['in/a.wav']).toMatchObject({ status: 'skipped', reason: TOUCHED });
      expect(planned['in/b.wav']).toMatchObject({ status: 'skipped', reason: 'already done' });
      expect(await journalLines(t)).toEqual(journalBefore);

      expect((await t.redact(['in'])).exitCode).toBe(0);
      expect((await t.sandbox.stats()).uploads).toBe(3);
      expect(await manifest()).toEqual(rowBefore);
      expect(rowBefore.input_sha256).toMatch(/^[0-9a-f]{64}$/);
    } finally {
      await t.cleanup();
    }
  });

  it("the manifest's done_at stays the redaction's time, however often the file is touched", async () => {
    const t = await setup();
    try {
      await threeDone(t);
      const doneAt = async () => (await manifestRowOfA(t)).done_at;
      const first = await doneAt();
      // The first run's done line of a.wav: when it was redacted.
      expect(first).toBe(linesOf(await journalLines(t), 'a.wav').at(-1)?.at);
      const a = join(t.dir, 'in', 'a.wav');
      for (const minutesAgo of [30, 20]) {
        const later = new Date(Date.now() - minutesAgo * 60_000);
        await utimes(a, later, later);
        const run = await t.redact(['in', '--json']);
        expect(run.exitCode).toBe(0);
        const outcome = jsonLines(run.stdout).find((line) => line.input === 'in/a.wav');
        expect(outcome).toMatchObject({ status: 'skipped', reason: TOUCHED });
        // Journaled again by this run (its line's `at` is later), but done when the first run did it.
        expect(linesOf(await journalLines(t), 'a.wav').at(-1)?.at).not.toBe(first);
        expect(await doneAt()).toBe(first);
      }
      expect((await t.sandbox.stats()).uploads).toBe(3);
    } finally {
      await t.cleanup();
    }
  });

  it("status shows a touched file's time as its redaction's, as the manifest does (--json and the pipe)", async () => {
    const t = await setup();
    try {
      await threeDone(t);
      const redactedAt = linesOf(await journalLines(t), 'a.wav').at(-1)?.at;
      const later = new Date(Date.now() - 1800_000);
      await utimes(join(t.dir, 'in', 'a.wav'), later, later);
      expect((await t.redact(['in'])).exitCode).toBe(0);
      expect(linesOf(await journalLines(t), 'a.wav').at(-1)).toMatchObject({ doneAt: redactedAt });
      expect(linesOf(await journalLines(t), 'a.wav').at(-1)?.at).not.toBe(redactedAt);

      const json = await runCli(['status', '-o', 'redacted', '--all', '--json'], { env: t.env, cwd: t.dir });
      expect(json.exitCode, String(json.stderr)).toBe(0);
      const files = (JSON.parse(String(json.stdout)) as { files: Array<Record<string, unknown>> }).files;
      const a = files.find((file) => String(file.input).endsWith('/in/a.wav'));
      expect(a).toMatchObject({ state: 'done', at: redactedAt });
      expect(a?.at).toBe((await manifestRowOfA(t)).done_at);

      const pipe = await runCli(['status', '-o', 'redacted', '--all'], { env: t.env, cwd: t.dir });
      const row = String(pipe.stdout)
        .split('\n')
        .find((line) => line.includes('/in/a.wav'));
      expect(row?.split('\t').at(-1)).toBe(redactedAt);
    } finally {
      await t.cleanup();
    }
  });

  it('a done line without the input hash (an older journal) is sent again as before', async () => {
    const t = await setup();
    try {
      await threeDone(t);
      const path = join(t.dir, 'redacted', '.vredact', 'journal.jsonl');
      const stripped = (await journalLines(t)).map((line) => {
        const { inputSha256: _sha, ...rest } = line;
        return JSON.stringify(rest);
      });
      await writeFile(path, `${stripped.join('\n')}\n`);
      const a = join(t.dir, 'in', 'a.wav');
      const later = new Date(Date.now() - 1800_000);
      await utimes(a, later, later);
      const second = await t.redact(['in', '--json']);
      expect(second.exitCode).toBe(0);
      const byInput = Object.fromEntries(jsonLines(second.stdout).map((line) => [line.input, line]));
      expect(byInput['in/a.wav']).toMatchObject({ status: 'done' });
      expect((await t.sandbox.stats()).uploads).toBe(4);
    } finally {
      await t.cleanup();
    }
  });
});
