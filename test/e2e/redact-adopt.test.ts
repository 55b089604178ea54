/**
 * A run that died after publishing a result and before its `done` line reached the disk: the next run
 * checks that output and records it done, without sending anything or asking the service anything.
 * The state on disk is made as such a crash leaves it: a finished run's journal without its done
 * lines (the uploading lines, which say no output stood there, were flushed before each upload).
 * Build first: `npm run build`.
 */
import { createHash } from 'node:crypto';
import { mkdir, readFile, truncate, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { isolatedEnv, runCli, tempDir } from '../helpers/cli.js';
import { makeWav } from '../helpers/mp3.js';
import { type ScriptedServer, startScriptedServer } from '../helpers/scripted-server.js';
import { readJournal } from '../helpers/journal.js';

let temp: Awaited<ReturnType<typeof tempDir>>;
let server: ScriptedServer;

beforeEach(async () => {
  temp = await tempDir('vredact-adopt-');
  // Answers each upload with the WAV it carried: a result that passes every check.
  server = await startScriptedServer((req, res, body) => {
    if (req.method !== 'POST') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"jobs":[]}');
      return;
    }
    const at = body.indexOf('RIFF');
    const wav = body.subarray(at, at + 8 + body.readUInt32LE(at + 4));
    res.writeHead(200, { 'content-type': 'audio/wav', 'content-length': wav.length });
    res.end(wav);
  });
});

afterEach(async () => {
  await server.close();
  await temp.cleanup();
});

const sha256 = async (path: string) =>
  createHash('sha256')
    .update(await readFile(path))
    .digest('hex');

function run(args: string[]) {
  const env = isolatedEnv(join(temp.path, 'cfg'), {
    VREDACT_BASE_URL: server.baseUrl,
    VREDACT_TOKEN: 'vr_test_adopt',
  });
  return runCli(args, { env, cwd: temp.path });
}

function journalLines(): Promise<Array<Record<string, unknown>>> {
  return readJournal(join(temp.path, 'out'));
}

it('records done the outputs a crashed run published, checked, without a request; fails one that is not whole, leaving it', async () => {
  await mkdir(join(temp.path, 'in'));
  for (const name of ['a', 'b', 'c'])
    await writeFile(join(temp.path, 'in', `${name}.wav`), makeWav(1, 16000));
  expect((await run(['redact', 'in', '-o', 'out'])).exitCode).toBe(0);
  const first = await journalLines();
  expect(first.filter((line) => line.event === 'uploading').every((line) => line.outputAbsent === true)).toBe(
    true,
  );
  // The crash: every done line lost; and c's output was damaged since.
  await writeFile(
    join(temp.path, 'out', '.vredact', 'journal.jsonl'),
    first
      .filter((line) => line.event !== 'done')
      .map((line) => `${JSON.stringify(line)}\n`)
      .join(''),
  );
  await truncate(join(temp.path, 'out', 'c.wav'), 1000);
  const requestsBefore = server.received.length;

  const status = await run(['status', '-o', 'out', '--json']);
  const pending = (JSON.parse(String(status.stdout)) as { files: { input: string; reason?: string }[] })
    .files;
  expect(pending.find((f) => f.input.endsWith('a.wav'))?.reason).toMatch(
    /after its result was saved: the next run checks that output and records it done/,
  );

  const dry = await run(['redact', 'in', '-o', 'out', '--dry-run', '--json']);
  const dryA = String(dry.stdout)
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Record<string, string>)
    .find((line) => line.input === 'in/a.wav');
  expect(dryA).toMatchObject({
    status: 'skipped',
    reason: expect.stringMatching(/after its result was saved/),
  });

  const rerun = await run(['redact', 'in', '-o', 'out', '--json']);
  expect(rerun.exitCode).toBe(1);
  expect(server.received.length).toBe(requestsBefore);
  const outcomes = String(rerun.stdout)
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Record<string, string>);
  const statusOf = (input: string) => outcomes.find((line) => line.input === input);
  expect(statusOf('in/a.wav')?.status).toBe('done');
  expect(statusOf('in/b.wav')?.status).toBe('done');
  expect(statusOf('in/c.wav')).toMatchObject({
    status: 'failed',
    reason: expect.stringMatching(/an output stands at its place, but not its result \(.*\): left as it is/),
  });

  const done = (await journalLines()).filter((line) => line.event === 'done');
  expect(done.map((line) => String(line.input).slice(-5)).sort()).toEqual(['a.wav', 'b.wav']);
  for (const line of done) {
    const name = String(line.input).slice(-5);
    expect(line).toMatchObject({ via: 'sync', recovered: true });
    expect(line.outputSha256).toBe(await sha256(join(temp.path, 'out', name)));
    expect(line.inputSha256).toBe(await sha256(join(temp.path, 'in', name)));
  }
  const manifest = String((await run(['status', '-o', 'out', '--manifest', '--json'])).stdout)
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as Record<string, string>);
  expect(manifest.map((row) => row.output_path?.slice(-5)).sort()).toEqual(['a.wav', 'b.wav']);

  // The damaged output was left; --overwrite redoes it.
  expect((await readFile(join(temp.path, 'out', 'c.wav'))).length).toBe(1000);
  const overwrite = await run(['redact', 'in/c.wav', '-o', 'out', '--overwrite']);
  expect(overwrite.exitCode).toBe(0);
  expect((await readFile(join(temp.path, 'out', 'c.wav'))).length).toBeGreaterThan(1000);
});
