/**
 * A job's items whose file name is no name (missing, null, a number, an object) or whose id is no
 * whole number, through the built binary: `jobs content` shows each as far as it can, and `download`
 * fails just those, fetching the others.
 */
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { isolatedEnv, runCli, tempDirPerTest } from '../helpers/cli.js';
import { startJobServer } from '../helpers/job-server.js';
import { type ScriptedServer, sendJsonText } from '../helpers/scripted-server.js';

const TOKEN = 'vr_oddity_0123456789abcdef';
const LINK = /\/files\/download-url$/;
const dir = tempDirPerTest('vredact-odd-items-');

const envFor = (server: ScriptedServer) =>
  isolatedEnv(join(dir.path, '.config'), { VREDACT_BASE_URL: server.baseUrl, VREDACT_TOKEN: TOKEN });

// Written as text: `1.5` and a name past any number's digits stay as the service wrote them.
const JOB_CONTENT = `{"jobContent": [
  {"id": 1, "file_name": "a.wav", "audio_duration": 0.1},
  {"id": 2, "audio_duration": 0.1, "created_at": "\\u001b[31mred"},
  {"id": 3, "file_name": null},
  {"id": 4, "file_name": 123456789012345678901234},
  {"id": 5, "file_name": {"name": "f.wav"}},
  {"id": 1.5, "file_name": "e.wav", "audio_duration": 0.1}
]}`;

const oddJob = () => startJobServer((res) => sendJsonText(res, 200, JOB_CONTENT));

describe('a job with items that have no usable name or a fractional id', () => {
  test('jobs content shows every item as far as it can, escaped, in a pipe and as JSON, exit 0', async () => {
    const server = await oddJob();
    try {
      const plain = await runCli(['jobs', 'content', 'job1'], { env: envFor(server) });
      expect(plain.exitCode, String(plain.stderr)).toBe(0);
      expect(String(plain.stdout).split('\n')).toEqual([
        '1\ta.wav\t0:00\t',
        '2\t\t0:00\t\\x1b[31mred',
        '3\t\t\t',
        '4\t123456789012345678901234\t\t',
        '5\t\t\t',
        '1.5\te.wav\t0:00\t',
      ]);
      const json = await runCli(['jobs', 'content', 'job1', '--json'], { env: envFor(server) });
      expect(json.exitCode, String(json.stderr)).toBe(0);
      const items = JSON.parse(String(json.stdout)) as Array<{ id: string; file_name: unknown }>;
      expect(items.map((item) => [item.id, item.file_name])).toEqual([
        ['1', 'a.wav'],
        ['2', null],
        ['3', null],
        ['4', Number('123456789012345678901234')],
        ['5', null],
        ['1.5', 'e.wav'],
      ]);
    } finally {
      await server.close();
    }
  });

  test('download saves the named files and fails each nameless item with one line, unasked for, exit 1', async () => {
    const server = await oddJob();
    try {
      const out = join(dir.path, 'out');
      const run = await runCli(['download', 'job1', '-o', out], { env: envFor(server) });
      expect(run.exitCode, String(run.stderr)).toBe(1);
      expect((await readdir(out)).sort()).toEqual(['a.wav', 'e.wav']);
      const links = server.received.filter((r) => LINK.test(r.url));
      expect(links).toHaveLength(2);
      const stderr = String(run.stderr).split('\n');
      const noName =
        "it cannot be asked for without a usable name; report the listing to the service's operators";
      expect(stderr).toEqual(
        expect.arrayContaining([
          `error: item 2 of the job (id 2): the service listed it without a file name; ${noName}`,
          `error: item 3 of the job (id 3): the service listed it without a file name; ${noName}`,
          `error: item 4 of the job (id 4): the service listed its file name as a number (123456789012345678901234); ${noName}`,
          `error: item 5 of the job (id 5): the service listed it without a file name; ${noName}`,
          '2 downloaded, 0 skipped, 4 failed',
        ]),
      );
      const json = await runCli(['download', 'job1', '-o', out, '--json'], { env: envFor(server) });
      expect(json.exitCode).toBe(1);
      const outcomes = JSON.parse(String(json.stdout)) as Array<{ fileName: string; status: string }>;
      expect(outcomes.map((o) => [o.fileName, o.status]).sort()).toEqual([
        ['', 'failed'],
        ['', 'failed'],
        ['', 'failed'],
        ['', 'failed'],
        ['a.wav', 'skipped'],
        ['e.wav', 'skipped'],
      ]);
    } finally {
      await server.close();
    }
  });
});
