import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { copyFile, mkdir, readFile, realpath, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { BIN, FIXTURES, isolatedEnv, runCli, tempDir, tempDirPerTest } from '../helpers/cli.js';
import { journalLine, writeJournal } from '../helpers/journal.js';
import { makeWav } from '../helpers/mp3.js';
import { startSandboxProcess } from '../helpers/sandbox.js';
import { setup, until } from '../helpers/e2e.js';

const sha256 = async (path: string) =>
  createHash('sha256')
    .update(await readFile(path))
    .digest('hex');

function rows(stdout: unknown): string[][] {
  return String(stdout)
    .split('\n')
    .filter(Boolean)
    .map((line) => line.split('\t'));
}

describe('over a journal written by hand', () => {
  const dir = tempDirPerTest('vredact-status-e2e-');
  const env = () => isolatedEnv(join(dir.path, 'config'));

  test('reads the journals of every shard: counts, TSV, JSON and the manifest', async () => {
    const out = join(dir.path, 'out');
    await writeJournal(
      out,
      [
        {
          at: '2026-11-21T02:00:00.000Z',
          event: 'submitted',
          input: '/in/a.wav',
          output: 'a.wav',
          jobId: 'j1',
        },
        {
          at: '2026-11-21T02:00:09.000Z',
          event: 'done',
          input: '/in/a.wav',
          output: 'a.wav',
          jobId: 'j1',
          via: 'job',
          inputSha256: 'aa',
          outputSha256: 'bb',
          voice: { age: 'senior-adult', gender: 'opposite' },
        },
      ],
      'journal.1-of-2.jsonl',
    );
    await writeJournal(
      out,
      [
        {
          at: '2026-11-21T02:00:01.000Z',
          event: 'rejected',
          input: '/in/b.txt',
          output: 'b.wav',
          reason: 'not a WAV or MP3 file',
        },
        {
          at: '2026-11-21T02:00:02.000Z',
          event: 'uploading',
          input: '/in/c.wav',
          output: 'c.wav',
          uploadName: 'c-9f.wav',
        },
      ],
      'journal.2-of-2.jsonl',
    );

    const tsv = await runCli(['status', '-o', out], { env: env() });
    expect(tsv.exitCode).toBe(0);
    expect(rows(tsv.stdout).map((row) => row.slice(0, 3))).toEqual([
      ['rejected', '/in/b.txt', 'not a WAV or MP3 file'],
      [
        'pending',
        '/in/c.wav',
        'upload interrupted; the next run looks for its job first, then sends it again',
      ],
    ]);
    expect(tsv.stderr).toContain(`3 journaled inputs in ${out}: 1 done, 1 pending, 0 failed, 1 rejected`);

    const json = await runCli(['status', '-o', out, '--json'], { env: env() });
    expect(JSON.parse(String(json.stdout))).toMatchObject({
      counts: { done: 1, uploading: 0, pending: 1, failed: 0, rejected: 1, total: 3 },
      journals: ['journal.1-of-2.jsonl', 'journal.2-of-2.jsonl'],
    });

    const manifest = await runCli(['status', '-o', out, '--manifest'], {
      env: env(),
      stripFinalNewline: false,
    });
    expect(manifest.exitCode).toBe(0);
    expect(String(manifest.stdout)).toBe(
      'input_path,input_sha256,output_path,output_sha256,job_id,target_voice,done_at\r\n' +
        `/in/a.wav,aa,${out}/a.wav,bb,j1,age=senior-adult;gender=opposite,2026-11-21T02:00:09.000Z\r\n`,
    );
  });

  test.skipIf(!existsSync('/usr/bin/script'))(
    'on a real terminal: compact lines, paths relative to the working folder, service text escaped',
    async () => {
      const out = join(dir.path, 'out');
      await writeJournal(out, [
        {
          at: '2026-11-21T02:00:00.000Z',
          event: 'done',
          input: join(dir.path, 'in', 'a.wav'),
          output: 'a.wav',
        },
        {
          at: '2026-11-21T02:00:01.000Z',
          event: 'failed',
          input: join(dir.path, 'in', 'b.wav'),
          output: 'b.wav',
          reason: 'the service said \u001b]0;owned\u0007 no',
          jobId: 'j7',
        },
      ]);
      const command = `"${process.execPath}" "${BIN}" status -o out`;
      const result = await execa('script', ['-qec', command, '/dev/null'], {
        cwd: dir.path,
        env: env(),
        extendEnv: false,
        reject: false,
      });
      expect(result.exitCode).toBe(0);
      const lines = String(result.stdout).split(/\r?\n/);
      expect(lines).toContain('2 journaled inputs in out: 1 done, 0 pending, 1 failed, 0 rejected');
      expect(lines).toContain('failed   in/b.wav  the service said \\x1b]0;owned\\x07 no (job j7)');
      expect(String(result.stdout)).not.toContain('\u001b');
    },
  );

  test('exits 2 with a clear message when the folder has no journal', async () => {
    const result = await runCli(['status', '-o', join(dir.path, 'nothing-here')], { env: env() });
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toMatch(/^error: no folder .*nothing-here\nhint: .*-o/);
    expect(result.stdout).toBe('');
  });

  test('a reader that stops early (| head -1) ends it quietly', async () => {
    const out = join(dir.path, 'out');
    const lines = Array.from({ length: 20_000 }, (_, i) =>
      journalLine({
        at: '2026-11-21T02:00:00.000Z',
        event: 'failed',
        input: `/in/${i}.wav`,
        reason: 'x'.repeat(80),
      }),
    );
    await writeJournal(out, lines);
    const result = await execa(
      'sh',
      ['-c', `"${process.execPath}" "${BIN}" status -o "${out}" | head -n 1`],
      {
        env: env(),
        extendEnv: false,
        reject: false,
      },
    );
    expect(result.exitCode).toBe(0);
    expect(rows(result.stdout)).toHaveLength(1);
    expect(result.stderr).not.toMatch(/EPIPE|at .*\.js/);
  });
});

describe('after real runs against the sandbox', () => {
  let sandbox: Awaited<ReturnType<typeof startSandboxProcess>>;
  let work: Awaited<ReturnType<typeof tempDir>>;

  beforeAll(async () => {
    work = await tempDir('vredact-status-sandbox-');
    // Fixtures are longer than 2 s: each upload becomes a job, finished 100× faster than real time.
    sandbox = await startSandboxProcess(['--sync-limit', '2', '--speed', '100']);
  });
  afterAll(async () => {
    await sandbox?.stop();
    await work?.cleanup();
  });

  test('status and the manifest match what the runs did', async () => {
    const env = isolatedEnv(join(work.path, 'config'), {
      VREDACT_BASE_URL: sandbox.baseUrl,
      VREDACT_TOKEN: sandbox.token,
    });
    const inDir = join(work.path, 'in');
    const out = join(work.path, 'out');
    await mkdir(inDir);
    for (const name of ['speech-16bit.wav', 'speech-cbr.mp3', 'not-audio.wav']) {
      await copyFile(join(FIXTURES, name), join(inDir, name));
    }
    const real = async (name: string) => realpath(join(inDir, name));

    // Submitted, not waited for: both audio files are pending, with their job ids.
    await runCli(['redact', inDir, '-o', out, '--no-wait'], { env });
    const pending = JSON.parse(String((await runCli(['status', '-o', out, '--json'], { env })).stdout)) as {
      counts: Record<string, number>;
      files: { input: string; state: string; jobId?: string; reason?: string }[];
    };
    expect(pending.counts).toEqual({ done: 0, uploading: 0, pending: 2, failed: 0, rejected: 1, total: 3 });
    const jobOf = new Map(pending.files.filter((f) => f.state === 'pending').map((f) => [f.input, f.jobId]));
    expect([...jobOf.keys()].sort()).toEqual([await real('speech-16bit.wav'), await real('speech-cbr.mp3')]);
    const listed = JSON.parse(String((await runCli(['jobs', 'list', '--json'], { env })).stdout)) as {
      job_id: string;
    }[];
    for (const jobId of jobOf.values()) expect(listed.map((job) => job.job_id)).toContain(jobId);
    expect(pending.files.find((f) => f.state === 'rejected')?.input).toBe(await real('not-audio.wav'));

    // A second run collects the jobs: two done, the rejected one stays.
    await runCli(['redact', inDir, '-o', out], { env });
    const tsv = await runCli(['status', '-o', out], { env });
    expect(tsv.exitCode).toBe(0);
    expect(rows(tsv.stdout).map((row) => row.slice(0, 2))).toEqual([
      ['rejected', await real('not-audio.wav')],
    ]);
    expect(tsv.stderr).toContain(`3 journaled inputs in ${out}: 2 done, 0 pending, 0 failed, 1 rejected`);

    const manifest = await runCli(['status', '-o', out, '--manifest', '--json'], { env });
    const records = String(manifest.stdout)
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, string>);
    expect(records.map((r) => r.input_path)).toEqual([
      await real('speech-16bit.wav'),
      await real('speech-cbr.mp3'),
    ]);
    for (const record of records) {
      const input = record.input_path as string;
      const output = record.output_path as string;
      expect(record.job_id).toBe(jobOf.get(input));
      expect(output.startsWith(`${out}/`)).toBe(true);
      // Journals written before the hashes were recorded leave them empty; when present they must be exact.
      if (record.output_sha256) expect(record.output_sha256).toBe(await sha256(output));
      else await expect(readFile(output)).resolves.toBeInstanceOf(Buffer);
      if (record.input_sha256) expect(record.input_sha256).toBe(await sha256(input));
      expect(Date.parse(record.done_at as string)).toBeGreaterThan(0);
    }
  });

  test('uploads cut short after a result: status says what the next run does, and the run does it', async () => {
    const env = isolatedEnv(join(work.path, 'config'), {
      VREDACT_BASE_URL: sandbox.baseUrl,
      VREDACT_TOKEN: sandbox.token,
    });
    const inDir = join(work.path, 'cut-in');
    const out = join(work.path, 'cut-out');
    await mkdir(inDir);
    // One second each: answered synchronously, so an upload cut short leaves no job to find.
    for (const name of ['a', 'b', 'c']) await writeFile(join(inDir, `${name}.wav`), makeWav(1));
    expect((await runCli(['redact', inDir, '-o', out], { env })).exitCode).toBe(0);

    // As a --overwrite run killed mid-upload leaves it (a, c), and a run killed between saving a
    // result and journaling it (b): an `uploading` line after the done one, or in its place.
    const journal = join(out, '.vredact', 'journal.jsonl');
    const lines = (await readFile(journal, 'utf8'))
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    const doneOf = (name: string) =>
      lines.find((line) => line.event === 'done' && String(line.input).endsWith(`/${name}.wav`)) as Record<
        string,
        unknown
      >;
    const cutShort = (done: Record<string, unknown>) =>
      journalLine({
        ...done,
        event: 'uploading',
        at: new Date().toISOString(),
        uploadName: 'x.0123456789ab.wav',
        durationSec: 1,
        via: undefined,
        bytes: undefined,
        outputSha256: undefined,
        voice: undefined,
      });
    const kept = lines.filter((line) => !(line.event === 'done' && String(line.input).endsWith('/b.wav')));
    await writeFile(
      journal,
      [
        ...kept.map((line) => JSON.stringify(line)),
        cutShort(doneOf('a')),
        cutShort(doneOf('b')),
        cutShort(doneOf('c')),
      ]
        .map((line) => `${line}\n`)
        .join(''),
    );
    await rm(join(out, 'c.wav'));

    const status = JSON.parse(String((await runCli(['status', '-o', out, '--json'], { env })).stdout)) as {
      counts: Record<string, number>;
      files: { input: string; state: string; reason?: string }[];
    };
    expect(status.counts).toEqual({ done: 1, uploading: 0, pending: 2, failed: 0, rejected: 0, total: 3 });
    const byName = new Map(status.files.map((f) => [f.input.slice(f.input.lastIndexOf('/') + 1), f]));
    expect(byName.get('b.wav')?.reason).toMatch(/no done line vouches for it: the next run leaves it/);
    expect(byName.get('c.wav')).toMatchObject({ state: 'pending' });
    expect(byName.get('c.wav')?.reason).toBe(
      'upload interrupted; the next run looks for its job first, then sends it again',
    );
    const manifest = String((await runCli(['status', '-o', out, '--manifest', '--json'], { env })).stdout)
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, string>);
    expect(manifest.map((row) => row.output_path)).toEqual([join(out, 'a.wav')]);
    expect(manifest[0]?.output_sha256).toBe(doneOf('a').outputSha256);
    expect(manifest[0]?.output_sha256).toBe(await sha256(join(out, 'a.wav')));

    const rerun = await runCli(['redact', inDir, '-o', out], { env });
    expect(rerun.exitCode).toBe(0);
    expect(rows(rerun.stdout).map((row) => [row[0], row[1]?.slice(-5)])).toEqual(
      expect.arrayContaining([
        ['skipped', 'a.wav'],
        ['skipped', 'b.wav'],
        ['done', 'c.wav'],
      ]),
    );
  });
});

describe('while a run is under way', () => {
  test('its uploads in flight read as uploading; once it is killed, as interrupted', async () => {
    const t = await setup(['--sync-limit', '3', '--speed', '100']);
    try {
      await t.fixture('speech-8k-ulaw.wav', 'in/call.wav'); // 7 s: a job
      // The service makes the job and holds its answer: the run's upload stays in flight.
      await t.sandbox.holdAccepted(120_000);
      const run = t.redact(['in', '-o', 'out']);
      await until(async () => (await t.sandbox.stats()).asyncJobs >= 1);
      const out = join(t.dir, 'out');
      const call = await realpath(join(t.dir, 'in', 'call.wav'));
      type Status = { counts: Record<string, number>; files: Record<string, unknown>[] };

      const during = await runCli(['status', '-o', out], { env: t.env });
      expect(during.exitCode).toBe(0);
      expect(rows(during.stdout).map((row) => row.slice(0, 3))).toEqual([
        ['uploading', call, 'being sent by the run under way (its upload started, or is next)'],
      ]);
      expect(during.stderr).toContain(
        `1 journaled input in ${out}: 0 done, 1 uploading, 0 pending, 0 failed, 0 rejected`,
      );
      expect(during.stderr).toMatch(
        /a run is under way in this folder \(pid \d+ on .+\): its uploads in flight show as uploading/,
      );
      const duringJson = JSON.parse(
        String((await runCli(['status', '-o', out, '--json'], { env: t.env })).stdout),
      ) as Status;
      expect(duringJson.counts).toEqual({
        done: 0,
        uploading: 1,
        pending: 0,
        failed: 0,
        rejected: 0,
        total: 1,
      });
      expect(duringJson.files).toEqual([
        expect.objectContaining({ input: call, state: 'uploading', event: 'uploading' }),
      ]);

      // The manifest lists the done files, whatever a run is sending.
      const manifest = await runCli(['status', '-o', out, '--manifest'], { env: t.env });
      expect(String(manifest.stdout)).toMatch(/^input_path,[^\n]*done_at$/);

      run.kill('SIGKILL');
      expect((await run).signal).toBe('SIGKILL');
      const after = await runCli(['status', '-o', out], { env: t.env });
      expect(rows(after.stdout).map((row) => row.slice(0, 3))).toEqual([
        ['pending', call, 'upload interrupted; the next run looks for its job first, then sends it again'],
      ]);
      expect(after.stderr).toContain(`1 journaled input in ${out}: 0 done, 1 pending, 0 failed, 0 rejected`);
      expect(after.stderr).not.toContain('under way');
      const afterJson = JSON.parse(
        String((await runCli(['status', '-o', out, '--json'], { env: t.env })).stdout),
      ) as Status;
      expect(afterJson.counts).toEqual({
        done: 0,
        uploading: 0,
        pending: 1,
        failed: 0,
        rejected: 0,
        total: 1,
      });
      expect(afterJson.files).toEqual([
        expect.objectContaining({ input: call, state: 'pending', event: 'uploading' }),
      ]);
    } finally {
      await t.sandbox.holdAccepted(0).catch(() => {});
      await t.cleanup();
    }
  });
});

describe('after a run that rejected two inputs for landing on one output, as the quick start does', () => {
  let e2e: Awaited<ReturnType<typeof setup>>;
  beforeAll(async () => {
    e2e = await setup();
  });
  afterAll(async () => {
    await e2e?.cleanup();
  });

  test("status counts what the journal holds, and says so: the run's shared-output rejections are not in it", async () => {
    for (const name of ['empty.wav', 'empty.mp3', 'header-only.wav', 'speech-16bit.wav']) {
      await e2e.fixture(name, join('in', name));
    }
    const run = await e2e.redact(['in', '-o', 'out']);
    expect(run.exitCode).toBe(1);
    expect(String(run.stderr)).toContain('rejected 3');
    const status = await runCli(['status', '-o', 'out'], { env: e2e.env, cwd: e2e.dir });
    expect(status.exitCode).toBe(0);
    // The journal's own verdicts: header-only.wav's. empty.wav and empty.mp3 were rejected by that
    // run's inputs together, which a run with one of them alone would send.
    expect(String(status.stderr)).toContain(
      `2 journaled inputs in ${join(e2e.dir, 'out')}: 1 done, 0 pending, 0 failed, 1 rejected`,
    );
    expect(rows(status.stdout).map((row) => row.slice(0, 2))).toEqual([
      ['rejected', join(await realpath(e2e.dir), 'in', 'header-only.wav')],
    ]);
  });
});
