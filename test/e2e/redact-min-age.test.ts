/**
 * `vredact redact --min-age`, end to end: the built binary against the sandbox. A file modified less
 * than the minimum before the run (a call still being recorded) is left for a later run: not sent,
 * not journaled, reported skipped with its reason; the run exits 0. Times are set, never waited for.
 */
import { readFile, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type E2E, jsonLines, setup } from '../helpers/e2e.js';

async function journalText(t: E2E): Promise<string> {
  return readFile(join(t.dir, 'redacted', '.vredact', 'journal.jsonl'), 'utf8').catch(() => '');
}

/** in/old.wav, modified two hours ago, and in/live.wav, modified now. */
async function oldAndLive(t: E2E): Promise<void> {
  const old = await t.fixture('speech-16bit.wav', 'in/old.wav');
  const live = await t.fixture('speech-16bit.wav', 'in/live.wav');
  const twoHoursAgo = new Date(Date.now() - 2 * 3600_000);
  await utimes(old, twoHoursAgo, twoHoursAgo);
  const now = new Date();
  await utimes(live, now, now);
}

const LEFT = /^modified \d+ s ago, under --min-age 1h: left for a later run$/;

describe('vredact redact --min-age', () => {
  it('sends the old file, leaves the one modified now for a later run, and sends it once it is old enough', async () => {
    const t = await setup();
    try {
      await oldAndLive(t);
      const first = await t.redact(['in', '--min-age', '1h']);
      expect(first.exitCode).toBe(0);
      const lines = String(first.stdout).trim().split('\n').sort();
      expect(lines[1]).toMatch(
        /^skipped\tin\/live\.wav\tmodified \d+ s ago, under --min-age 1h: left for a later run$/,
      );
      expect(lines[0]).toBe('done\tin/old.wav\tredacted/old.wav');
      expect(String(first.stderr)).toMatch(
        /redacted 1, skipped 1 \(already done 0, too recent for --min-age 1\), rejected 0, failed 0, pending 0/,
      );
      expect((await t.sandbox.stats()).uploads).toBe(1);
      const journal = await journalText(t);
      expect(journal).toContain('old.wav');
      expect(journal).not.toContain('live.wav');

      // The recording is finished and two hours old: the next run sends it, and only it.
      const twoHoursAgo = new Date(Date.now() - 2 * 3600_000);
      await utimes(join(t.dir, 'in', 'live.wav'), twoHoursAgo, twoHoursAgo);
      const second = await t.redact(['in', '--min-age', '1h', '--json']);
      expect(second.exitCode).toBe(0);
      const byInput = Object.fromEntries(jsonLines(second.stdout).map((line) => [line.input, line]));
      expect(byInput['in/live.wav']).toEqual({
        input: 'in/live.wav',
        output: 'redacted/live.wav',
        status: 'done',
      });
      expect(byInput['in/old.wav']).toMatchObject({ status: 'skipped', reason: 'already done' });
      expect((await t.sandbox.stats()).uploads).toBe(2);
      expect(await journalText(t)).toContain('live.wav');
    } finally {
      await t.cleanup();
    }
  });

  it('--json gives the left file its reason and the summary its count; --files-from and a shard alike', async () => {
    const t = await setup();
    try {
      await oldAndLive(t);
      await writeFile(join(t.dir, 'list.txt'), 'in/old.wav\nin/live.wav\n');
      const result = await t.redact([
        '--files-from',
        'list.txt',
        '--shard',
        '1/1',
        '--min-age',
        '1h',
        '--json',
      ]);
      expect(result.exitCode).toBe(0);
      const lines = jsonLines(result.stdout);
      const live = lines.find((line) => line.input === 'in/live.wav');
      expect(live).toMatchObject({ output: 'redacted/live.wav', status: 'skipped', tooRecent: true });
      expect(String(live?.reason)).toMatch(LEFT);
      expect(lines.find((line) => line.input === 'in/old.wav')).not.toHaveProperty('tooRecent');
      expect(lines.at(-1)).toEqual({
        summary: { done: 1, skipped: 1, rejected: 0, failed: 0, pending: 0, tooRecent: 1 },
      });
      expect((await t.sandbox.stats()).uploads).toBe(1);
    } finally {
      await t.cleanup();
    }
  });

  it('--json tells a file left for a later run from one already done by a field, not by its reason', async () => {
    const t = await setup();
    try {
      await oldAndLive(t);
      expect((await t.redact(['in', '--min-age', '1h'])).exitCode).toBe(0);
      const again = await t.redact(['in', '--min-age', '1h', '--json']);
      expect(again.exitCode).toBe(0);
      const byInput = Object.fromEntries(jsonLines(again.stdout).map((line) => [line.input, line]));
      expect(byInput['in/old.wav']).toEqual({
        input: 'in/old.wav',
        output: 'redacted/old.wav',
        status: 'skipped',
        reason: 'already done',
      });
      expect(byInput['in/live.wav']).toEqual({
        input: 'in/live.wav',
        output: 'redacted/live.wav',
        status: 'skipped',
        reason: expect.stringMatching(LEFT),
        tooRecent: true,
      });
      expect((await t.sandbox.stats()).uploads).toBe(1);
    } finally {
      await t.cleanup();
    }
  });

  it('--dry-run shows the left file as a run would report it, and sends nothing', async () => {
    const t = await setup();
    try {
      await oldAndLive(t);
      const result = await t.redact(['in', '--min-age', '1h', '--dry-run', '--json']);
      expect(result.exitCode).toBe(0);
      const lines = jsonLines(result.stdout);
      const byInput = Object.fromEntries(lines.map((line) => [line.input, line]));
      expect(byInput['in/old.wav']).toMatchObject({ status: 'would-send' });
      expect(byInput['in/live.wav']).toMatchObject({ status: 'skipped', tooRecent: true });
      expect(String(byInput['in/live.wav']?.reason)).toMatch(LEFT);
      expect(lines.at(-1)).toEqual({
        summary: { 'would-send': 1, 'would-collect': 0, skipped: 1, rejected: 0, tooRecent: 1 },
        dryRun: true,
      });
      expect((await t.sandbox.stats()).uploads).toBe(0);
    } finally {
      await t.cleanup();
    }
  });

  it('a file modified in the future is left, with one warning for the run', async () => {
    const t = await setup();
    try {
      const ahead = new Date(Date.now() + 3 * 3600_000);
      for (const name of ['a.wav', 'b.wav']) {
        const path = await t.fixture('speech-16bit.wav', `in/${name}`);
        await utimes(path, ahead, ahead);
      }
      const result = await t.redact(['in', '--min-age', '10m', '--json']);
      expect(result.exitCode).toBe(0);
      for (const line of jsonLines(result.stdout).filter((line) => 'input' in line)) {
        expect(line).toMatchObject({ status: 'skipped', tooRecent: true });
        expect(String(line.reason)).toMatch(
          /^modified 2:59:\d\d in the future, under --min-age 10m: left for a later run$/,
        );
      }
      const warnings = String(result.stderr)
        .split('\n')
        .filter((line) => line.startsWith('warning:'));
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toMatch(
        /in the future; files like it are left by --min-age 10m until they are older/,
      );
      expect((await t.sandbox.stats()).uploads).toBe(0);
    } finally {
      await t.cleanup();
    }
  });
});
