import { join } from 'node:path';
import { expect, test } from 'vitest';
import { runStatus } from '../../../src/commands/status/status.js';
import { UsageError } from '../../../src/errors.js';
import { memoryConfigStore } from '../../../src/settings/config-store.js';
import { columnsOf } from '../../../src/output/fit.js';
import { tempDirPerTest } from '../../helpers/cli.js';
import { testContext } from '../../helpers/context.js';
import { writeJournal } from '../../helpers/journal.js';

const dir = tempDirPerTest('vredact-status-cmd-');

async function journal(outDir: string) {
  await writeJournal(outDir, [
    {
      at: '2026-11-21T02:00:00.000Z',
      event: 'uploading',
      input: '/in/a.wav',
      output: 'a.wav',
      uploadName: 'a-1.wav',
    },
    {
      at: '2026-11-21T02:00:01.000Z',
      event: 'done',
      input: '/in/a.wav',
      output: 'a.wav',
      inputSha256: 'aa',
      outputSha256: 'bb',
      voice: { gender: 'f' },
    },
    {
      at: '2026-11-21T02:00:02.000Z',
      event: 'failed',
      input: '/in/b.wav',
      output: 'b.wav',
      reason: 'answer\u001b]0;pwned\u0007 cut\tshort',
      jobId: 'j\u001b[2J1',
    },
    { at: '2026-11-21T02:00:03.000Z', event: 'submitted', input: '/in/c.wav', output: 'c.wav', jobId: 'j2' },
    'torn {"v":1',
  ]);
}

async function run(flags: Record<string, unknown>, options: { tty?: boolean; columns?: number } = {}) {
  const outDir = join(dir.path, 'out');
  const t = await testContext({
    flags: { outDir, json: flags.json === true },
    tty: options.tty === true,
    ...(options.columns === undefined ? {} : { columns: options.columns }),
  });
  const code = await runStatus(t.ctx, [], flags);
  return { code, stdout: t.stdout(), stderr: t.stderr(), outDir };
}

test('in a pipe: one TSV line per file not done, counts and warnings on stderr, service text escaped', async () => {
  await journal(join(dir.path, 'out'));
  const { code, stdout, stderr, outDir } = await run({});
  expect(code).toBe(0);
  expect(stdout.split('\n').filter(Boolean)).toEqual([
    `failed\t/in/b.wav\tanswer\\x1b]0;pwned\\x07 cut short\tj\\x1b[2J1\t${outDir}/b.wav\t2026-11-21T02:00:02.000Z`,
    `pending\t/in/c.wav\tsubmitted; the next run collects its job\tj2\t${outDir}/c.wav\t2026-11-21T02:00:03.000Z`,
  ]);
  expect(stderr).toContain('skipped 1 journal line(s) that could not be read');
  expect(stderr).toContain('1 done, 1 pending, 1 failed, 0 rejected');
  expect(stdout + stderr).not.toContain('\u001b');
});

test('--all lists the done files too', async () => {
  await journal(join(dir.path, 'out'));
  const { stdout } = await run({ all: true });
  expect(
    stdout
      .split('\n')
      .filter(Boolean)
      .map((line) => line.split('\t')[0]),
  ).toEqual(['failed', 'pending', 'done']);
});

test('on a terminal: the counts, then compact lines with reasons and job ids', async () => {
  await journal(join(dir.path, 'out'));
  const { stdout } = await run({}, { tty: true, columns: 1000 });
  const lines = stdout.split('\n').filter(Boolean);
  expect(lines[0]).toMatch(/^3 journaled inputs in .*out: 1 done, 1 pending, 1 failed, 0 rejected$/);
  expect(lines[1]).toMatch(/^failed +\/in\/b\.wav +answer\\x1b\]0;pwned\\x07 cut short \(job j\\x1b\[2J1\)$/);
  expect(lines[2]).toMatch(/^pending +\/in\/c\.wav .*\(job j2\)$/);
  expect(stdout).not.toContain('\u001b');
});

test('a narrow terminal gets each line cut to its width; a pipe of the same width keeps whole lines', async () => {
  await journal(join(dir.path, 'out'));
  const terminal = (await run({}, { tty: true, columns: 30 })).stdout.split('\n').filter(Boolean);
  expect(terminal.slice(1)).toEqual(['failed   /in/b.wav  answer\\x1…', 'pending  /in/c.wav  submitted…']);
  for (const line of terminal) expect(columnsOf(line)).toBeLessThanOrEqual(30);
  const pipe = (await run({}, { columns: 30 })).stdout;
  expect(pipe).toContain('\tsubmitted; the next run collects its job\tj2\t');
});

test('--json: one document with the counts and the files not done', async () => {
  await journal(join(dir.path, 'out'));
  const { stdout, outDir } = await run({ json: true });
  const doc = JSON.parse(stdout) as Record<string, unknown>;
  expect(doc).toEqual({
    outDir,
    journals: ['journal.jsonl'],
    counts: { done: 1, uploading: 0, pending: 1, failed: 1, rejected: 0, total: 3 },
    unreadableLines: 1,
    files: [
      {
        input: '/in/b.wav',
        output: `${outDir}/b.wav`,
        state: 'failed',
        event: 'failed',
        reason: 'answer\u001b]0;pwned\u0007 cut\tshort',
        jobId: 'j\u001b[2J1',
        at: '2026-11-21T02:00:02.000Z',
      },
      {
        input: '/in/c.wav',
        output: `${outDir}/c.wav`,
        state: 'pending',
        event: 'submitted',
        reason: 'submitted; the next run collects its job',
        jobId: 'j2',
        at: '2026-11-21T02:00:03.000Z',
      },
    ],
  });
});

test('--json with nothing to list is still one valid document', async () => {
  await writeJournal(join(dir.path, 'out'), []);
  const { stdout } = await run({ json: true });
  expect(JSON.parse(stdout)).toMatchObject({ counts: { total: 0 }, files: [] });
});

test('--manifest: the CSV of the done files; with --json, one object per line', async () => {
  await journal(join(dir.path, 'out'));
  const csv = await run({ manifest: true });
  expect(csv.stdout).toBe(
    'input_path,input_sha256,output_path,output_sha256,job_id,target_voice,done_at\r\n' +
      `/in/a.wav,aa,${csv.outDir}/a.wav,bb,,gender=f,2026-11-21T02:00:01.000Z\r\n`,
  );
  const lines = await run({ manifest: true, json: true });
  expect(
    lines.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as unknown),
  ).toEqual([
    {
      input_path: '/in/a.wav',
      input_sha256: 'aa',
      output_path: `${lines.outDir}/a.wav`,
      output_sha256: 'bb',
      job_id: '',
      target_voice: 'gender=f',
      done_at: '2026-11-21T02:00:01.000Z',
    },
  ]);
});

test('a folder without a journal is a usage error that says which folder', async () => {
  await expect(run({})).rejects.toThrow(UsageError);
  await expect(run({})).rejects.toThrow(/no folder .*out/);
  await writeJournal(join(dir.path, 'out'), [], 'lock-not-a-journal');
  await expect(run({})).rejects.toThrow(/no journal in .*out/);
});

test('a missing folder named by the config file says so: the user typed no -o', async () => {
  // "no folder /srv/x; hint: name the output folder … with -o" left the user to guess where /srv/x came from.
  const outDir = join(dir.path, 'from-config');
  const t = await testContext({ config: memoryConfigStore({ 'out-dir': outDir }) });
  await expect(runStatus(t.ctx, [], {})).rejects.toMatchObject({
    message: `no folder ${outDir}`,
    hint: 'the config file names it (out-dir: `vredact config get out-dir`); name another folder with -o',
  });
});
