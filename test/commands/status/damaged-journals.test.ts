/**
 * `vredact status` over journals that years and accidents leave: lines of another version, damage,
 * text a terminal must not obey. Each prints what the next run will act on, and never a stack trace.
 */
import { appendFile, chmod, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { expect, test } from 'vitest';
import { runStatus } from '../../../src/commands/status/status.js';
import type { CliError } from '../../../src/errors.js';
import { readingError } from '../../../src/status/read-journals.js';
import { acquireLock } from '../../../src/redact/lock.js';
import { tempDirPerTest } from '../../helpers/cli.js';
import { testContext } from '../../helpers/context.js';
import { journalLine, writeJournal } from '../../helpers/journal.js';
import { silentLogger } from '../../../src/output/logger.js';

const dir = tempDirPerTest('vredact-status-damaged-');
const AT = '2026-11-21T02:00:00.000Z';

async function run(flags: Record<string, unknown>, options: { tty?: boolean } = {}) {
  const outDir = join(dir.path, 'out');
  const t = await testContext({
    flags: { outDir, json: flags.json === true },
    tty: options.tty === true,
    columns: 1000,
  });
  const code = await runStatus(t.ctx, [], flags);
  return { code, stdout: t.stdout(), stderr: t.stderr(), outDir };
}

interface Doc {
  counts: Record<string, number>;
  unreadableLines: number;
  files: Record<string, unknown>[];
}

test('an event this version does not know (a later one’s) is failed, as the next run sends the file again', async () => {
  await writeJournal(join(dir.path, 'out'), [
    { at: AT, event: 'done', input: '/in/a.wav', output: 'a.wav' },
    { at: AT, event: 'verified', input: '/in/a.wav', output: 'a.wav' },
    { at: AT, event: 'done', input: '/in/b.wav', output: 'b.wav' },
  ]);
  const { code, stdout } = await run({ json: true });
  expect(code).toBe(0);
  const doc = JSON.parse(stdout) as Doc;
  expect(doc.counts).toEqual({ done: 1, uploading: 0, pending: 0, failed: 1, rejected: 0, total: 2 });
  expect(doc.files).toEqual([
    expect.objectContaining({
      input: '/in/a.wav',
      state: 'failed',
      reason: expect.stringMatching(/does not know \("verified"\): the next run sends it again$/),
    }),
  ]);
  const tsv = await run({});
  expect(tsv.stdout).toMatch(/^failed\t\/in\/a\.wav\t.*"verified"/);
});

test('--json escapes DEL, C1 and bidirectional controls as every --json does; the values parse back exact', async () => {
  const input = '/in/\u202eevaw.exe';
  const reason = 'answer \u009b2J\u007f cut';
  await writeJournal(join(dir.path, 'out'), [
    { at: AT, event: 'failed', input, output: 'a.wav', reason },
    { at: AT, event: 'done', input, output: 'a.wav' },
    { at: AT, event: 'failed', input: '/in/b.wav', output: 'b.wav', reason },
  ]);
  const { stdout } = await run({ json: true, all: true });
  expect(stdout).not.toMatch(/[\u007f-\u009f\u202e]/);
  expect(stdout).toContain('\\u202e');
  const files = (JSON.parse(stdout) as Doc).files;
  expect(files.map((file) => [file.input, file.reason])).toEqual([
    ['/in/b.wav', reason],
    [input, undefined],
  ]);
  const manifest = await run({ json: true, manifest: true });
  expect(manifest.stdout).not.toMatch(/[\u007f-\u009f\u202e]/);
  expect((JSON.parse(manifest.stdout) as { input_path: string }).input_path).toBe(input);
});

test('a line whose input holds a lone surrogate (no real path does) is unreadable; every input counted is listed', async () => {
  await writeJournal(join(dir.path, 'out'), [
    { at: AT, event: 'rejected', input: '/in/bad\ud800.wav', output: 'bad.wav', reason: 'not audio' },
    { at: AT, event: 'failed', input: '/in/bad\ufffd.wav', output: 'bad.wav', reason: 'refused' },
  ]);
  const { stdout, stderr } = await run({ json: true });
  const doc = JSON.parse(stdout) as Doc;
  expect(doc.counts).toEqual({ done: 0, uploading: 0, pending: 0, failed: 1, rejected: 0, total: 1 });
  expect(doc.unreadableLines).toBe(1);
  expect(doc.files).toEqual([expect.objectContaining({ input: '/in/bad\ufffd.wav', reason: 'refused' })]);
  expect(stderr).toContain('skipped 1 journal line(s)');
});

test('a last line a run under way is writing is not damage; one no run is writing (a crash tore it) is', async () => {
  const outDir = join(dir.path, 'out');
  const half = journalLine({ at: AT, event: 'failed', input: '/in/c.wav', output: 'c.wav' }).slice(0, 40);
  for (const shard of ['1-of-2', '2-of-2']) {
    const name = `journal.${shard}.jsonl`;
    const done = { at: AT, event: 'done', input: `/in/${shard}.wav`, output: `${shard}.wav` };
    await appendFile(await writeJournal(outDir, [done], name), half);
  }
  // The run of shard 2 holds its lock: its torn line is the one it is appending as status reads.
  const held = await acquireLock(outDir, silentLogger, Date.now, { name: 'lock.2-of-2' });
  try {
    const { stdout, stderr } = await run({ json: true });
    const doc = JSON.parse(stdout) as Doc;
    expect(doc.counts).toMatchObject({ done: 2, failed: 0, total: 2 });
    expect(doc.unreadableLines).toBe(1);
    expect(stderr).toContain('skipped 1 journal line(s) that could not be read');
  } finally {
    await held.release();
  }
  const after = JSON.parse((await run({ json: true })).stdout) as Doc;
  expect(after.unreadableLines).toBe(2);
  expect(after.counts).toMatchObject({ done: 2, total: 2 });
});

test('a journal status may not read: the error names it, and the hint says how to read it', async () => {
  const denied = Object.assign(new Error('EACCES: permission denied'), { code: 'EACCES' });
  const error = readingError(denied, '/srv/out/.vredact/journal.2-of-2.jsonl') as CliError;
  expect(error.message).toBe('reading /srv/out/.vredact/journal.2-of-2.jsonl: permission denied (EACCES)');
  expect(error.exitCode).toBe(1);
  expect(error.hint).toMatch(
    /run it as the user that runs `vredact redact` into it, or give yours read access/,
  );
  expect(error.hint).not.toMatch(/write to/);
});

test.skipIf(process.getuid?.() === 0)(
  'a shard journal this user cannot read: no stack, a hint to read it',
  async () => {
    const outDir = join(dir.path, 'out');
    await writeJournal(
      outDir,
      [{ at: AT, event: 'done', input: '/in/a.wav', output: 'a.wav' }],
      'journal.1-of-2.jsonl',
    );
    await chmod(await writeJournal(outDir, [], 'journal.2-of-2.jsonl'), 0);
    await expect(run({})).rejects.toThrow(/reading .*journal\.2-of-2\.jsonl: permission denied/);
    await expect(run({})).rejects.toMatchObject({ hint: expect.stringMatching(/read access/) });
  },
);

test('-o naming a file says it is not a folder', async () => {
  await writeFile(join(dir.path, 'out'), 'a recording, not a folder');
  await expect(run({})).rejects.toThrow(/^.*out is not a folder$/);
});

test('a journal saved with a byte-order mark by an editor keeps its first line', async () => {
  const path = await writeJournal(join(dir.path, 'out'), []);
  const lines = [
    { at: AT, event: 'submitted', input: '/in/a.wav', output: 'a.wav', jobId: 'j1' },
    { at: AT, event: 'done', input: '/in/b.wav', output: 'b.wav' },
  ];
  await writeFile(path, `\ufeff${lines.map((line) => `${journalLine(line)}\r\n`).join('')}`);
  const doc = JSON.parse((await run({ json: true })).stdout) as Doc;
  expect(doc.unreadableLines).toBe(0);
  expect(doc.counts).toMatchObject({ done: 1, pending: 1, total: 2 });
  expect(doc.files).toEqual([expect.objectContaining({ input: '/in/a.wav', jobId: 'j1' })]);
});
