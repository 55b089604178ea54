/**
 * The support commands (`jobs content`, `download`) against services that behave oddly, through the
 * built binary: a listing throttled for a while is ridden out as every other request is, and a reader
 * that goes away ends the listing at once.
 */
import { readdir } from 'node:fs/promises';
import type { ServerResponse } from 'node:http';
import { join } from 'node:path';
import { execa } from 'execa';
import { describe, expect, test } from 'vitest';
import { BIN, isolatedEnv, runCli, tempDirPerTest } from '../helpers/cli.js';
import { startJobServer } from '../helpers/job-server.js';
import {
  type ScriptedServer,
  sendJson,
  sendJsonText,
  startScriptedServer,
} from '../helpers/scripted-server.js';

const TOKEN = 'vr_support_0123456789abcdef';
const CONTENT = /^\/api\/jobs\/[^/]+\/content$/;
const dir = tempDirPerTest('vredact-support-');

const envFor = (server: ScriptedServer) =>
  isolatedEnv(join(dir.path, '.config'), { VREDACT_BASE_URL: server.baseUrl, VREDACT_TOKEN: TOKEN });

const throttle = (res: ServerResponse, retryAfter: string) =>
  sendJson(res, 429, { error: 429, message: 'slow down' }, { 'retry-after': retryAfter });

/**
 * A job of two files whose listing is throttled (429 with `retryAfter`) the first `throttled` times it
 * is asked for; the links and files are served at once.
 */
async function throttledListing(throttled: number, retryAfter: string): Promise<ScriptedServer> {
  let listings = 0;
  const jobContent = ['a.wav', 'b.wav'].map((file_name, i) => ({
    id: i + 1,
    file_name,
    audio_duration: 0.1,
  }));
  return startJobServer((res) =>
    listings++ < throttled ? throttle(res, retryAfter) : sendJson(res, 200, { jobContent }),
  );
}

describe('a throttled listing of a job', () => {
  // Six throttles and one retry allowed: throttles are ridden out, as the contract says, not counted.
  test('jobs content rides out six 429s with --max-retries 1 and prints the files, exit 0', async () => {
    const server = await throttledListing(6, '0.05');
    try {
      const run = await runCli(['jobs', 'content', 'job1', '--max-retries', '1'], { env: envFor(server) });
      expect(run.exitCode, String(run.stderr)).toBe(0);
      expect(
        String(run.stdout)
          .split('\n')
          .map((line) => line.split('\t')[1]),
      ).toEqual(['a.wav', 'b.wav']);
      expect(server.received.filter((r) => CONTENT.test(r.url))).toHaveLength(7);
    } finally {
      await server.close();
    }
  });

  test('download rides out six 429s of the listing with --max-retries 1 and saves both files, exit 0', async () => {
    const server = await throttledListing(6, '0.05');
    try {
      const out = join(dir.path, 'out');
      const run = await runCli(['download', 'job1', '-o', out, '--max-retries', '1'], {
        env: envFor(server),
      });
      expect(run.exitCode, String(run.stderr)).toBe(0);
      expect((await readdir(out)).sort()).toEqual(['a.wav', 'b.wav']);
    } finally {
      await server.close();
    }
  });

  test('jobs content given a Retry-After past --max-throttle-wait fails at once naming the wait, exit 1', async () => {
    const server = await throttledListing(Number.POSITIVE_INFINITY, '3600');
    try {
      const run = await runCli(['jobs', 'content', 'job1', '--max-throttle-wait', '90s'], {
        env: envFor(server),
      });
      expect(run.exitCode).toBe(1);
      expect(String(run.stderr)).toMatch(
        /^error: reading job job1: the service asked to wait 1h 0m \(until \d{4}-\d\d-\d\d \d\d:\d\d UTC\); try again then$/m,
      );
      expect(run.stdout).toBe('');
      expect(server.received).toHaveLength(1);
    } finally {
      await server.close();
    }
  });
});

/**
 * A job's listing that never ends: items written as fast as the client takes them, until it hangs
 * up. Resolves `hungUp` with how many items were written.
 */
async function endlessListing(): Promise<{ server: ScriptedServer; hungUp: Promise<number> }> {
  let hungUp!: (items: number) => void;
  const ended = new Promise<number>((resolve) => (hungUp = resolve));
  const server = await startScriptedServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.write('{"jobContent":[');
    let items = 0;
    const more = () => {
      while (!res.destroyed) {
        const item = { id: items + 1, file_name: `call-${items}.wav`, audio_duration: 1 };
        if (!res.write(`${items++ === 0 ? '' : ','}${JSON.stringify(item)}`)) return res.once('drain', more);
      }
    };
    res.on('close', () => hungUp(items));
    more();
  });
  return { server, hungUp: ended };
}

describe('a reader that goes away', () => {
  test('`jobs content <job> | head -1` on a listing that never ends stops reading it: exit 0, nothing on stderr', async () => {
    const { server, hungUp } = await endlessListing();
    try {
      const run = await execa(
        'bash',
        ['-c', `node ${BIN} jobs content job1 | head -1; exit "\${PIPESTATUS[0]}"`],
        {
          env: envFor(server),
          extendEnv: false,
          stdin: 'ignore',
          reject: false,
        },
      );
      expect(run.stdout).toBe('1\tcall-0.wav\t0:01\t');
      expect(run.stderr).toBe('');
      expect(run.exitCode).toBe(0);
      // It hung up on the listing: read to its end, it met the million-item limit and failed.
      expect(await hungUp).toBeLessThan(1_000_000);
    } finally {
      await server.close();
    }
  });
});

describe("a job's items with no id", () => {
  // The interface marks none of an item's fields required, and download asks for a file by its name.
  const jobContent = [
    { job_id: 'job1', file_name: 'a.wav', audio_duration: 0.1, created_at: '2026-01-01T00:00:00Z' },
    { id: null, file_name: 'b.wav', audio_duration: 0.1 },
    { id: 3, file_name: 'c.wav', audio_duration: 0.1 },
  ];

  const idlessJob = () => startJobServer((res) => sendJson(res, 200, { jobContent }));

  test('jobs content lists them with the id empty in a pipe, null as JSON, exit 0', async () => {
    const server = await idlessJob();
    try {
      const plain = await runCli(['jobs', 'content', 'job1'], { env: envFor(server) });
      expect(plain.exitCode, String(plain.stderr)).toBe(0);
      expect(String(plain.stdout).split('\n')).toEqual([
        '\ta.wav\t0:00\t2026-01-01 00:00:00',
        '\tb.wav\t0:00\t',
        '3\tc.wav\t0:00\t',
      ]);
      const json = await runCli(['jobs', 'content', 'job1', '--json'], { env: envFor(server) });
      expect(json.exitCode, String(json.stderr)).toBe(0);
      const items = JSON.parse(String(json.stdout)) as Array<{ id: string | null; file_name: string }>;
      expect(items.map((item) => [item.id, item.file_name])).toEqual([
        [null, 'a.wav'],
        [null, 'b.wav'],
        ['3', 'c.wav'],
      ]);
    } finally {
      await server.close();
    }
  });

  test('download saves every file of the job, exit 0', async () => {
    const server = await idlessJob();
    try {
      const out = join(dir.path, 'out');
      const run = await runCli(['download', 'job1', '-o', out], { env: envFor(server) });
      expect(run.exitCode, String(run.stderr)).toBe(0);
      expect((await readdir(out)).sort()).toEqual(['a.wav', 'b.wav', 'c.wav']);
    } finally {
      await server.close();
    }
  });
});

describe('dates no calendar has', () => {
  test('jobs list shows 2026-02-30 and 24:00 as the service wrote them, sorted last: not as 2026-03-02, the newest', async () => {
    const jobs = [
      { job_id: 'march-1', token: 'vr_other_0123456789', created_at: '2026-03-01T00:00:00Z' },
      { job_id: 'feb-30', token: 'vr_other_0123456789', created_at: '2026-02-30T00:00:00Z' },
      { job_id: 'hour-24', token: 'vr_other_0123456789', created_at: '2026-01-01T24:00:00Z' },
    ];
    const server = await startScriptedServer((_req, res) => sendJson(res, 200, { jobs }));
    try {
      const run = await runCli(['jobs', 'list'], { env: envFor(server) });
      expect(run.exitCode, String(run.stderr)).toBe(0);
      expect(String(run.stdout).split('\n')).toEqual([
        'march-1\t2026-03-01 00:00:00\tvr_…6789',
        'feb-30\t2026-02-30T00:00:00Z\tvr_…6789',
        'hour-24\t2026-01-01T24:00:00Z\tvr_…6789',
      ]);
    } finally {
      await server.close();
    }
  });
});

describe('times given as epoch numbers', () => {
  // Written as text: the numbers as the service wrote them.
  const LISTING = `{"jobs": [
    {"job_id": "text-nov", "token": "vr_other_0123456789", "created_at": "2024-11-20T00:00:00Z"},
    {"job_id": "secs", "token": "vr_other_0123456789", "created_at": 1732166043},
    {"job_id": "text-dec", "token": "vr_other_0123456789", "created_at": "2024-12-01T08:00:00Z"},
    {"job_id": "millis", "token": "vr_other_0123456789", "created_at": 1732500000123},
    {"job_id": "odd", "token": "vr_other_0123456789", "created_at": "job 5"}
  ]}`;

  test('jobs list shows them as the other times (seconds or milliseconds by their size), sorted among them; --json keeps them as given', async () => {
    const server = await startScriptedServer((_req, res) => sendJsonText(res, 200, LISTING));
    try {
      const run = await runCli(['jobs', 'list'], { env: envFor(server) });
      expect(run.exitCode, String(run.stderr)).toBe(0);
      expect(String(run.stdout).split('\n')).toEqual([
        'text-dec\t2024-12-01 08:00:00\tvr_…6789',
        'millis\t2024-11-25 02:00:00\tvr_…6789',
        'secs\t2024-11-21 05:14:03\tvr_…6789',
        'text-nov\t2024-11-20 00:00:00\tvr_…6789',
        'odd\tjob 5\tvr_…6789',
      ]);
      const json = await runCli(['jobs', 'list', '--json'], { env: envFor(server) });
      expect(json.exitCode, String(json.stderr)).toBe(0);
      const times = (JSON.parse(String(json.stdout)) as Array<{ job_id: string; created_at: unknown }>).map(
        (job) => [job.job_id, job.created_at],
      );
      expect(times).toEqual([
        ['text-dec', '2024-12-01T08:00:00Z'],
        ['millis', '1732500000123'],
        ['secs', '1732166043'],
        ['text-nov', '2024-11-20T00:00:00Z'],
        ['odd', 'job 5'],
      ]);
    } finally {
      await server.close();
    }
  });
});
