/**
 * Crashes, interrupts, re-runs, jobs left waiting: the built binary against the sandbox.
 * Build first: `npm run build`.
 */
import { appendFile, readFile, stat, writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { makeWav } from '../helpers/mp3.js';
import { isWav, jsonLines, listFiles, setup, until } from '../helpers/e2e.js';
import { OUR_SPACE_TAG, temporaryNameOf } from '../helpers/process-space.js';

async function journalEvents(outDir: string): Promise<Array<Record<string, unknown>>> {
  const { readFile } = await import('node:fs/promises');
  const text = await readFile(join(outDir, '.vredact', 'journal.jsonl'), 'utf8').catch(() => '');
  return text
    .split('\n')
    .filter(Boolean)
    .flatMap((line) => {
      try {
        return [JSON.parse(line) as Record<string, unknown>];
      } catch {
        return [];
      }
    });
}

describe('vredact redact: recovery', () => {
  it('after a SIGKILL mid-batch, a re-run ends with every file done once and no partial files', async () => {
    const t = await setup(['--latency', '300']);
    try {
      const names = Array.from({ length: 8 }, (_, i) => `f${i}.wav`);
      for (const name of names) await t.fixture('speech-8k-ulaw.wav', `in/${name}`);
      const first = t.redact(['in', '-c', '2', '-o', 'out']);
      // A file recorded done (its `done` line is written after its output is renamed into place), more
      // in flight. An upload's slot is free once its answer is in, so a third upload alone does not
      // mean an output is saved yet.
      await until(
        async () =>
          (await journalEvents(join(t.dir, 'out'))).some((line) => line.event === 'done') &&
          (await t.sandbox.stats()).uploads >= 3,
      );
      first.kill('SIGKILL');
      const killed = await first;
      expect(killed.signal).toBe('SIGKILL');
      const savedAtKill = (await listFiles(join(t.dir, 'out'))).filter((name) => !name.startsWith('.'));
      const linesAtKill = (await journalEvents(join(t.dir, 'out'))).length;
      // What a crash mid-download leaves: a temporary file of a dead process beside the outputs.
      await writeFile(join(t.dir, 'out', temporaryNameOf(2 ** 30, OUR_SPACE_TAG, '0')), 'half a file');

      const second = await t.redact(['in', '-c', '2', '-o', 'out', '--json']);
      // Its outcome lines and log say which file did not end done, should it ever exit otherwise.
      expect(second.exitCode, `${String(second.stdout)}\n${String(second.stderr)}`).toBe(0);
      expect(String(second.stderr)).toMatch(/took over the lock/);
      const outcomes = jsonLines(second.stdout).slice(0, -1);
      expect(outcomes.map((line) => line.input).sort()).toEqual(names.map((name) => `in/${name}`));
      expect(outcomes.every((line) => line.status === 'done' || line.status === 'skipped')).toBe(true);
      expect(outcomes.some((line) => line.status === 'skipped')).toBe(true);

      const files = await listFiles(join(t.dir, 'out'));
      expect(files.filter((name) => name.endsWith('.vredact-partial'))).toEqual([]);
      expect(files.filter((name) => !name.startsWith('.vredact/'))).toEqual(names);
      for (const name of names) expect(await isWav(join(t.dir, 'out', name))).toBe(true);
      // Only the files with no output on disk at the kill were sent again, once each: those in flight,
      // and those whose answer was in but not yet flushed and renamed (the publish stage, which does
      // not hold an upload slot, so there may be more of them than -c under a slow disk).
      const unsaved = names.filter((name) => !savedAtKill.includes(name));
      const events = await journalEvents(join(t.dir, 'out'));
      const sentAgain = events.slice(linesAtKill).filter((line) => line.event === 'uploading');
      expect(sentAgain.map((line) => basename(String(line.input))).sort()).toEqual(unsaved);
      expect((await t.sandbox.stats()).uploads).toBeLessThanOrEqual(names.length + unsaved.length);
      const done = events.filter((line) => line.event === 'done');
      expect(new Set(done.map((line) => line.input)).size).toBe(done.length); // each done once
    } finally {
      await t.cleanup();
    }
  });

  it('after a SIGKILL between the service accepting an upload and its answer, a re-run collects that job and uploads nothing', async () => {
    const t = await setup(['--sync-limit', '3', '--speed', '100']);
    try {
      await t.fixture('speech-8k-ulaw.wav', 'in/call.wav'); // 7 s: an asynchronous job
      // The service makes the job, then holds its 202: the CLI dies without ever seeing the job id.
      await t.sandbox.holdAccepted(120_000);
      const first = t.redact(['in', '-o', 'out']);
      await until(async () => (await t.sandbox.stats()).asyncJobs >= 1);
      first.kill('SIGKILL');
      expect((await first).signal).toBe('SIGKILL');
      await t.sandbox.holdAccepted(0);
      const before = await t.sandbox.stats();
      expect(before.uploads).toBe(1);
      expect((await journalEvents(join(t.dir, 'out'))).map((line) => line.event)).toEqual(['uploading']);

      const second = await t.redact(['in', '-o', 'out', '--json']);
      expect(second.exitCode).toBe(0);
      const [outcome, summary] = jsonLines(second.stdout);
      expect(outcome).toMatchObject({ input: 'in/call.wav', status: 'done', jobId: expect.any(String) });
      expect(summary).toMatchObject({ summary: { done: 1 } });
      const after = await t.sandbox.stats();
      expect(after.uploads).toBe(before.uploads);
      expect(after.asyncJobs).toBe(1);
      expect(await isWav(join(t.dir, 'out', 'call.wav'))).toBe(true);
      const events = await journalEvents(join(t.dir, 'out'));
      expect(events.map((line) => line.event)).toEqual(['uploading', 'submitted', 'done']);
      expect(events[1]).toMatchObject({ jobId: outcome?.jobId, reconciled: true });
    } finally {
      await t.cleanup();
    }
  });

  it('SIGINT lets in-flight uploads finish and exits 130; a later run finishes without sending anything twice', async () => {
    const t = await setup(['--latency', '400', '--sync-limit', '3', '--speed', '100']);
    try {
      const names: string[] = [];
      for (let i = 0; i < 3; i++) {
        await writeFile(join(t.dir, `short-${i}.wav`), makeWav(1, 8000)); // synchronous
        await t.fixture('speech-8k-ulaw.wav', `long-${i}.wav`); // 7 s: a job
        names.push(`short-${i}.wav`, `long-${i}.wav`);
      }
      const first = t.redact([...names, '-c', '2', '-o', 'out', '--json']);
      await until(async () => (await t.sandbox.stats()).uploads >= 2);
      first.kill('SIGINT');
      const interrupted = await first;
      expect(interrupted.exitCode).toBe(130);
      const sentBefore = (await t.sandbox.stats()).uploads;
      expect(sentBefore).toBeLessThan(names.length);
      const firstOutcomes = jsonLines(interrupted.stdout).slice(0, -1);
      expect(firstOutcomes.filter((line) => line.status === 'pending').length).toBeGreaterThan(0);
      // Every upload that was sent is on record (a result or a job id): none is sent again below.
      const recorded = (await journalEvents(join(t.dir, 'out'))).filter(
        (line) => line.event === 'done' || line.event === 'submitted',
      );
      expect(new Set(recorded.map((line) => line.input)).size).toBe(sentBefore);

      const second = await t.redact([...names, '-c', '2', '-o', 'out']);
      expect(second.exitCode).toBe(0);
      expect((await t.sandbox.stats()).uploads).toBe(names.length);
      for (const name of names) expect(await isWav(join(t.dir, 'out', name))).toBe(true);
    } finally {
      await t.cleanup();
    }
  });

  it('--no-wait submits and exits 0; a later run collects the jobs without uploading again', async () => {
    const t = await setup(['--sync-limit', '3', '--speed', '100']);
    try {
      for (let i = 0; i < 3; i++) await t.fixture('speech-16bit.wav', `in/call-${i}.wav`);
      const first = await t.redact(['in', '--no-wait', '--json']);
      expect(first.exitCode).toBe(0);
      const lines = jsonLines(first.stdout);
      expect(
        lines.slice(0, -1).every((line) => line.status === 'pending' && typeof line.jobId === 'string'),
      ).toBe(true);
      expect(lines.at(-1)).toMatchObject({ summary: { pending: 3, done: 0 } });
      await expect(stat(join(t.dir, 'redacted', 'call-0.wav'))).rejects.toThrow();
      const submitted = (await journalEvents(join(t.dir, 'redacted'))).filter(
        (line) => line.event === 'submitted',
      );
      expect(submitted).toHaveLength(3);

      const second = await t.redact(['in', '--json']);
      expect(second.exitCode).toBe(0);
      const collected = jsonLines(second.stdout).slice(0, -1);
      expect(collected.every((line) => line.status === 'done')).toBe(true);
      expect(collected.map((line) => line.jobId).sort()).toEqual(submitted.map((line) => line.jobId).sort());
      for (let i = 0; i < 3; i++) expect(await isWav(join(t.dir, 'redacted', `call-${i}.wav`))).toBe(true);
      expect((await t.sandbox.stats()).uploads).toBe(3);
    } finally {
      await t.cleanup();
    }
  });

  it('--no-wait --quiet (a nightly submit): the submitted jobs are no problem line, a rejected file still is', async () => {
    const t = await setup(['--sync-limit', '3', '--speed', '100']);
    try {
      for (let i = 0; i < 2; i++) await t.fixture('speech-16bit.wav', `in/call-${i}.wav`);
      await t.fixture('not-audio.wav', 'in/broken.wav');
      const night = await t.redact(['in', '--no-wait', '--quiet']);
      expect(night.exitCode).toBe(1);
      expect(night.stdout).toBe('rejected\tin/broken.wav\tnot a WAV or MP3 file');
      expect(night.stderr).toBe('');
      const submitted = (await journalEvents(join(t.dir, 'redacted'))).filter(
        (line) => line.event === 'submitted',
      );
      expect(submitted).toHaveLength(2);

      const loud = await t.redact(['in', '--no-wait', '--quiet', '--json']);
      expect(jsonLines(loud.stdout).at(-1)).toMatchObject({ summary: { rejected: 1 } });
      expect((await t.sandbox.stats()).uploads).toBe(2);
    } finally {
      await t.cleanup();
    }
  });

  it('leaves jobs not finished within --wait-timeout pending, exit 1', async () => {
    const t = await setup(['--sync-limit', '3', '--speed', '0.001']);
    try {
      await t.fixture('speech-16bit.wav', 'slow.wav');
      const result = await t.redact(['slow.wav', '--wait-timeout', '2s', '--json']);
      expect(result.exitCode).toBe(1);
      const [line, summary] = jsonLines(result.stdout);
      expect(line).toMatchObject({ input: 'slow.wav', status: 'pending', jobId: expect.any(String) });
      expect(line?.reason).toMatch(/--wait-timeout/);
      expect(summary).toMatchObject({ summary: { pending: 1 } });
      const events = await journalEvents(join(t.dir, 'redacted'));
      expect(events.map((event) => event.event)).toEqual(['uploading', 'submitted']);
    } finally {
      await t.cleanup();
    }
  });

  it('a journal rewrite killed before its rename leaves no file behind once the next run has run', async () => {
    const t = await setup();
    try {
      for (const name of ['a.wav', 'b.wav']) await t.fixture('speech-8k-ulaw.wav', `in/${name}`);
      expect((await t.redact(['in', '-o', 'out'])).exitCode).toBe(0);
      // Years of nightly re-runs: far more lines than inputs, so the next run compacts the journal.
      const journal = join(t.dir, 'out', '.vredact', 'journal.jsonl');
      const doneLines = (await readFile(journal, 'utf8'))
        .split('\n')
        .filter((line) => line.includes('"done"'));
      await appendFile(journal, `${Array.from({ length: 600 }, () => doneLines.join('\n')).join('\n')}\n`);
      // The run dies (SIGKILL, the OOM killer) with the rewritten journal flushed but not yet renamed.
      const preload = join(t.dir, 'die-before-journal-rename.mjs');
      await writeFile(
        preload,
        [
          "import fs from 'node:fs/promises';",
          "import { syncBuiltinESMExports } from 'node:module';",
          'const rename = fs.rename;',
          'fs.rename = async (from, to) => {',
          "  if (String(to).endsWith('journal.jsonl')) process.kill(process.pid, 'SIGKILL');",
          '  return rename(from, to);',
          '};',
          'syncBuiltinESMExports();',
        ].join('\n'),
      );
      const killed = await t.redact(['in', '-o', 'out'], {
        env: { ...t.env, NODE_OPTIONS: `--import ${pathToFileURL(preload).href}` },
      });
      expect(killed.signal).toBe('SIGKILL');

      const next = await t.redact(['in', '-o', 'out']);
      expect(next.exitCode).toBe(0);
      expect((await t.sandbox.stats()).uploads).toBe(2);
      const state = (await listFiles(join(t.dir, 'out'))).filter((name) => name.startsWith('.vredact/'));
      expect(state).toEqual(['.vredact/journal.jsonl']);
      expect((await readFile(journal, 'utf8')).split('\n').filter(Boolean)).toHaveLength(2);
    } finally {
      await t.cleanup();
    }
  });

  it('a second run on the same output folder while one is running refuses, exit 2, sending nothing', async () => {
    const t = await setup(['--latency', '1000']);
    try {
      for (let i = 0; i < 4; i++) await t.fixture('speech-8k-ulaw.wav', `in/a${i}.wav`);
      await t.fixture('speech-8k-ulaw.wav', 'other/b.wav');
      const first = t.redact(['in', '-o', 'out', '-c', '1']);
      await until(async () => (await t.sandbox.stats()).uploads >= 1);
      const second = await t.redact(['other', '-o', 'out']);
      expect(second.exitCode).toBe(2);
      expect(String(second.stderr)).toMatch(/another vredact run is using the output folder/);
      expect((await first).exitCode).toBe(0);
      expect((await t.sandbox.stats()).uploads).toBe(4);
      await expect(stat(join(t.dir, 'out', 'b.wav'))).rejects.toThrow();
    } finally {
      await t.cleanup();
    }
  });
});
