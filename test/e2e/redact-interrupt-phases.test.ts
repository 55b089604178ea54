/**
 * A first interrupt of `vredact redact` where no upload is in flight, through the built binary: it
 * says "no upload in flight; exiting" and exits, at once, in every phase. Before, a run interrupted
 * while it listed a folder tree walked the whole tree, then went on (its output folder made, its
 * journal opened, every file reported pending); one interrupted while it listed the service's jobs
 * (the look-up of uploads cut short) went on until the listing ended, only to discard it. And what a
 * first interrupt counts as in flight is an upload whose request is under way: one waiting at the
 * throttle gate is not (before, it was counted, and the line said "the 2 uploads").
 */
import { existsSync } from 'node:fs';
import { mkdir, open, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterEach, describe, expect, it } from 'vitest';
import { collectStderr, isolatedEnv, runCli, tempDirPerTest } from '../helpers/cli.js';
import { STARTED_PRELOAD } from '../helpers/started-preload.js';
import { type E2E, jsonLines, setup, until } from '../helpers/e2e.js';
import { REDACTION, uploads } from '../helpers/holding-service.js';
import { sendJson, startScriptedServer, type ScriptedServer } from '../helpers/scripted-server.js';
import { answerWithSpeech, speechInputs } from '../helpers/speech-files.js';

const dir = tempDirPerTest('vredact-e2e-interrupt-phases-');

let e2e: E2E | undefined;
let server: ScriptedServer | undefined;
let release = () => {};
afterEach(async () => {
  release();
  await server?.close();
  server = undefined;
  await e2e?.cleanup();
  e2e = undefined;
});

/** A folder tree of `width`² folders, each with a `.wav` name (never opened: the listing is stopped). */
async function bigTree(root: string, width: number): Promise<void> {
  for (let i = 0; i < width; i++) {
    await Promise.all(
      Array.from({ length: width }, async (_, j) => {
        const folder = join(root, `d${i}`, `e${j}`);
        await mkdir(folder, { recursive: true });
        await writeFile(join(folder, 'a.wav'), '');
      }),
    );
  }
}

describe('a first interrupt with no upload in flight exits at once', () => {
  it('while the inputs are listed: the walk stops, nothing is made, reported or sent', async () => {
    server = await startScriptedServer((_req, res) => sendJson(res, 500, { error: 500, message: 'no' }));
    const env = isolatedEnv(join(dir.path, 'config'), {
      VREDACT_BASE_URL: server.baseUrl,
      VREDACT_TOKEN: 'vr_test_listing',
    });
    // 10,000 folders: listing them takes seconds, much longer than the start-up before it.
    await bigTree(join(dir.path, 'in'), 100);
    const preload = join(dir.path, 'started.cjs');
    const started = join(dir.path, 'started');
    await writeFile(preload, STARTED_PRELOAD);
    const child = runCli(['redact', 'in', '-o', 'out', '--json'], {
      env: { ...env, NODE_OPTIONS: `--require ${preload}`, STARTED_FILE: started },
      cwd: dir.path,
    });
    await until(async () => existsSync(started) || child.exitCode !== null, 20_000);
    // Past Node.js's own first milliseconds, which no process can catch a signal in (see
    // start-signals.test.ts): the signal comes as the modules load (held) or as the tree is walked.
    await new Promise((resolve) => setTimeout(resolve, 250));
    child.kill('SIGINT');
    const result = await child;
    expect(result.exitCode, String(result.stderr)).toBe(130);
    expect(String(result.stderr)).toMatch(/^warning: interrupted: no upload in flight; exiting$/m);
    // Not a file of the tree was decided, so none is reported: a summary of none, saying why.
    expect(jsonLines(result.stdout)).toEqual([
      { summary: { done: 0, skipped: 0, rejected: 0, failed: 0, pending: 0 }, interrupted: true },
    ]);
    expect(existsSync(join(dir.path, 'out')), 'the output folder is not made').toBe(false);
    expect(server.received).toEqual([]);
  }, 120_000);

  it('--json while the --files-from list is read: the last line is the summary, saying the interruption; exit 130', async () => {
    server = await startScriptedServer((_req, res) => sendJson(res, 500, { error: 500, message: 'no' }));
    const env = isolatedEnv(join(dir.path, 'config'), {
      VREDACT_BASE_URL: server.baseUrl,
      VREDACT_TOKEN: 'vr_test_files_from',
    });
    // A list whose writer never closes it: the run waits in its discovery for as long as the test.
    const list = join(dir.path, 'list');
    await execa('mkfifo', [list]);
    const child = runCli(['redact', '--files-from', 'list', '-o', 'out', '--json'], { env, cwd: dir.path });
    const stderr = collectStderr(child);
    // Opening a FIFO to write returns once its reader has it open: the run is reading the list.
    const writer = await Promise.race([open(list, 'w'), child.then(() => undefined)]);
    expect(writer, stderr()).toBeDefined();
    try {
      await writer?.write('in/a.wav\n');
      child.kill('SIGTERM');
      const result = await child;
      expect(result.exitCode, stderr()).toBe(130);
      const lines = jsonLines(result.stdout);
      expect(lines.at(-1)).toEqual({
        summary: { done: 0, skipped: 0, rejected: 0, failed: 0, pending: 0 },
        interrupted: true,
      });
      expect(lines).toHaveLength(1);
    } finally {
      await writer?.close();
    }
    expect(existsSync(join(dir.path, 'out')), 'the output folder is not made').toBe(false);
    expect(server.received).toEqual([]);
  }, 60_000);

  it('while the jobs are listed to look up a cut upload: nothing sent, the re-run still finds its job', async () => {
    e2e = await setup(['--sync-limit', '3', '--speed', '100']);
    await e2e.fixture('speech-8k-ulaw.wav', 'in/call.wav'); // 7 s: an asynchronous job
    await e2e.fixture('speech-16bit.wav', 'in/short.wav');
    // The service makes the job, then holds its 202: the run dies without seeing the job id.
    await e2e.sandbox.holdAccepted(120_000);
    const first = e2e.redact(['in/call.wav', '-o', 'out']);
    await until(async () => (await e2e!.sandbox.stats()).asyncJobs >= 1);
    first.kill('SIGKILL');
    expect((await first).signal).toBe('SIGKILL');
    await e2e.sandbox.holdAccepted(0);
    const journal = join(e2e.dir, 'out', '.vredact', 'journal.jsonl');
    const cut = await readFile(journal, 'utf8');

    // The next run's listing of the service's jobs is held, never answered.
    let held = () => {};
    const holding = new Promise<void>((resolve) => (held = resolve));
    server = await startScriptedServer(async (req, res) => {
      if (req.url?.startsWith('/api/jobs')) {
        await new Promise<void>((resolve) => {
          release = resolve;
          held();
        });
      }
      res.destroy();
    });
    const second = runCli(['redact', 'in', '-o', 'out', '--json'], {
      env: { ...e2e.env, VREDACT_BASE_URL: server.baseUrl },
      cwd: e2e.dir,
    });
    const stderr = collectStderr(second);
    await holding;
    second.kill('SIGINT');
    const result = await second;
    expect(result.exitCode, stderr()).toBe(130);
    expect(stderr()).toMatch(/^warning: interrupted: no upload in flight; exiting$/m);
    expect(server.received.map((request) => request.url)).toEqual([expect.stringMatching(/^\/api\/jobs/)]);
    const [summary] = jsonLines(result.stdout).filter((line) => 'summary' in line);
    // No input is decided after the interrupt: both are counted undecided, neither reported.
    expect(summary).toEqual({
      summary: { done: 0, skipped: 0, rejected: 0, failed: 0, pending: 0, undecided: 2 },
      interrupted: true,
    });
    expect(await readdir(join(e2e.dir, 'out'))).toEqual(['.vredact']);
    // The cut upload's line stands: the next run looks its job up again.
    expect(await readFile(journal, 'utf8')).toBe(cut);

    const before = await e2e.sandbox.stats();
    const third = await e2e.redact(['in', '-o', 'out', '--json']);
    expect(third.exitCode, String(third.stderr)).toBe(0);
    const outcomes = jsonLines(third.stdout);
    expect(outcomes).toContainEqual(expect.objectContaining({ input: 'in/call.wav', status: 'done' }));
    expect(outcomes).toContainEqual(expect.objectContaining({ input: 'in/short.wav', status: 'done' }));
    // Only the file never sent is uploaded: the cut upload's job is collected, not sent twice.
    expect((await e2e.sandbox.stats()).uploads).toBe(before.uploads + 1);
  }, 120_000);
});

describe('what a first interrupt counts as in flight', () => {
  it('an upload waiting at the throttle gate is not in flight: "the upload in flight", the waiting one not sent', async () => {
    // The first upload is held under way; the second is throttled (its wait is at the gate).
    let answered = () => {};
    const answer = new Promise<void>((resolve) => (answered = resolve));
    release = answered;
    server = await startScriptedServer(async (req, res, _body, index) => {
      if (req.url !== REDACTION) return sendJson(res, 404, { error: 404, message: 'not found' });
      if (index === 0) {
        await answer;
        return answerWithSpeech(res);
      }
      res.setHeader('Retry-After', '60');
      return sendJson(res, 429, { error: 429, message: 'slow down' });
    });
    const env = isolatedEnv(join(dir.path, 'config'), {
      VREDACT_BASE_URL: server.baseUrl,
      VREDACT_TOKEN: 'vr_test_gate',
    });
    await speechInputs(dir.path, 2);
    const child = runCli(['redact', 'in', '-c', '2', '-o', 'out', '--json', '-v'], { env, cwd: dir.path });
    const stderr = collectStderr(child);
    await until(async () => stderr().includes('waiting at the gate'), 30_000);
    child.kill('SIGINT');
    await until(async () => stderr().includes('warning: interrupted'), 30_000);
    release();
    const result = await child;
    expect(stderr()).toMatch(
      /^warning: interrupted: finishing the upload in flight, then exiting; press Ctrl-C again to stop it now$/m,
    );
    expect(result.exitCode, stderr()).toBe(130);
    expect(uploads(server)).toBe(2);
    const statuses = jsonLines(result.stdout)
      .filter((line) => 'status' in line)
      .map((line) => line.status)
      .sort();
    expect(statuses).toEqual(['done', 'pending']);
  }, 90_000);
});
