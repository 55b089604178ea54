/**
 * A run's first upload whose connection is dropped with no HTTP answer, before anything at the base
 * URL has answered in HTTP: a cron on a flaky network, or a port that is not the service. One look at
 * the job listing for the run tells which. The service answers it: the batch goes on, and the dropped
 * upload is that file's lost answer (its job looked for, found or left for the next run). Nothing
 * answers it in HTTP either: the batch stops as before, with the same words, after that one listing.
 */
import { once } from 'node:events';
import { readdir } from 'node:fs/promises';
import { createServer, type AddressInfo, type Socket } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isolatedEnv, runCli, tempDirPerTest } from '../helpers/cli.js';
import { startCleanRoomService } from '../helpers/clean-room-server.js';
import { jsonLines, until } from '../helpers/e2e.js';
import { startInterceptingRelay } from '../helpers/intercepting-relay.js';
import { latestEvents } from '../helpers/journal.js';
import { speechInputs } from '../helpers/speech-files.js';

const REDACTION = '/api/speech-to-speech-biometric-redaction';
const FILES = 3;
const dir = tempDirPerTest('vredact-first-drop-');

/** `extra` names the concurrency (`-c`). */
async function redact(baseUrl: string, token: string, extra: string[]) {
  const out = join(dir.path, 'out');
  const run = await runCli(['redact', await speechInputs(dir.path, FILES), '-o', out, '--json', ...extra], {
    env: isolatedEnv(join(dir.path, '.config'), { VREDACT_BASE_URL: baseUrl, VREDACT_TOKEN: token }),
  });
  const files = jsonLines(run.stdout).filter((line) => 'input' in line);
  const written = (await readdir(out).catch(() => [])).filter((name) => name.endsWith('.wav'));
  return { run, files, stderr: String(run.stderr), written };
}

describe('the first upload dropped with no answer, at a service that then answers', () => {
  it.each([
    ['after the service made its job: found among the jobs, collected, sent once', 'after-taking'],
    ['before the service got it: not found, left for the next run, which sends it once', 'before-taking'],
  ] as const)('%s', { timeout: 120_000 }, async (_name, when) => {
    const service = await startCleanRoomService({ listSourceFile: true });
    let dropped = false;
    const relay = await startInterceptingRelay(service.baseUrl, async (req, _res, _body, pass) => {
      if (req.method !== 'POST' || req.url !== REDACTION || dropped) return 'pass';
      dropped = true;
      if (when === 'after-taking') await pass();
      req.socket.destroy();
    });
    try {
      // One upload at a time: no other upload's answer comes before the dropped one's failure.
      const first = await redact(relay.baseUrl, service.token, ['-c', '1']);
      expect(first.stderr).not.toContain('the batch stopped');
      expect(first.stderr).not.toContain('nothing at the base URL has answered in HTTP');
      // The run's one look at the service, before the dropped upload's own look for its job.
      const listings = relay.received.filter((r) => r.method === 'GET' && r.url === '/api/jobs');
      expect(listings.length).toBeGreaterThanOrEqual(2);
      expect(relay.received.filter((r) => r.method === 'POST' && r.url === REDACTION)).toHaveLength(FILES);
      if (when === 'after-taking') {
        expect(first.run.exitCode, first.stderr).toBe(0);
        expect(first.files.map((line) => line.status)).toEqual(Array(FILES).fill('done'));
        expect(first.written).toHaveLength(FILES);
        // Each recording reached the service once: the dropped one's job was found, not sent again.
        expect(service.uploads()).toHaveLength(FILES);
        return;
      }
      expect(first.run.exitCode, first.stderr).toBe(1);
      const statuses = first.files.map((line) => line.status).sort();
      expect(statuses).toEqual(['done', 'done', 'failed']);
      const failed = first.files.find((line) => line.status === 'failed');
      expect(String(failed?.reason)).toMatch(
        /; the service may have taken it: the next run looks for its job before sending again/,
      );
      expect(service.uploads()).toHaveLength(FILES - 1);

      const second = await redact(relay.baseUrl, service.token, ['-c', '1']);
      expect(second.run.exitCode, second.stderr).toBe(0);
      expect(second.files.map((line) => line.status).sort()).toEqual(['done', 'skipped', 'skipped']);
      expect(second.written).toHaveLength(FILES);
      expect(service.uploads()).toHaveLength(FILES);
    } finally {
      await relay.close();
      await service.close();
    }
  });
});

/** A TCP port that reads each connection's request line, then drops it: reset, or closed. */
async function droppingPort(drop: (socket: Socket) => void) {
  const lines: string[] = [];
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => {});
    socket.once('data', (chunk: Buffer) => {
      lines.push(chunk.toString('latin1').split('\r\n')[0] ?? '');
      drop(socket);
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    lines,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

describe('the first upload dropped with no answer, at a port that is not the service', () => {
  it.each([
    ['resets every connection', (socket: Socket) => void socket.resetAndDestroy()],
    ['closes every connection at once (an http:// URL on a TLS port)', (socket: Socket) => void socket.end()],
  ])('that %s: stops as before, after one listing', { timeout: 60_000 }, async (_name, drop) => {
    const port = await droppingPort(drop);
    try {
      const { run, files, stderr, written } = await redact(port.baseUrl, 'vr_first_drop_0123456789', [
        '-c',
        '2',
        '--max-retries',
        '0',
      ]);
      expect(run.exitCode, stderr).toBe(1);
      expect(stderr).toMatch(
        /^error: the batch stopped: redacting call-\d\.wav: .*; nothing at the base URL has answered in HTTP this run$/m,
      );
      expect(stderr).toContain('hint: check the service URL and its port');
      expect(files.filter((line) => line.status === 'done')).toEqual([]);
      expect(written).toEqual([]);
      // The uploads in flight (-c 2), and the run's one look at the listing: no more recordings.
      expect(port.lines.filter((line) => line.startsWith('POST ')).length).toBeLessThanOrEqual(2);
      expect(port.lines.filter((line) => line.startsWith('GET /api/jobs '))).toHaveLength(1);
    } finally {
      await port.close();
    }
  });
});

describe('the run look at the listing after a first drop, when the listing itself does not answer', () => {
  it(
    'a listing held past --timeout at -c 32: every file ends with its line, no more recordings go',
    { timeout: 120_000 },
    async () => {
      const service = await startCleanRoomService({ listSourceFile: true });
      let release = () => {};
      const held = new Promise<void>((resolve) => (release = resolve));
      let dropped = false;
      const relay = await startInterceptingRelay(service.baseUrl, async (req) => {
        if (req.method === 'GET' && req.url?.startsWith('/api/jobs')) return void (await held);
        if (req.method !== 'POST' || req.url !== REDACTION || dropped) return 'pass';
        dropped = true;
        req.socket.destroy();
      });
      const count = 40;
      try {
        const out = join(dir.path, 'out');
        const run = await runCli(
          [
            'redact',
            await speechInputs(dir.path, count),
            '-o',
            out,
            '--json',
            '-c',
            '32',
            '--timeout',
            '2',
            '--max-retries',
            '0',
          ],
          {
            env: isolatedEnv(join(dir.path, '.config'), {
              VREDACT_BASE_URL: relay.baseUrl,
              VREDACT_TOKEN: service.token,
            }),
          },
        );
        const stderr = String(run.stderr);
        const files = jsonLines(run.stdout).filter((line) => 'input' in line);
        expect(new Set(files.map((line) => line.input)).size, stderr).toBe(count);
        expect(run.exitCode, stderr).toBe(1);
        const posts = relay.received.filter((r) => r.method === 'POST' && r.url === REDACTION).length;
        // Sent: those in flight when the drop came (at most -c); none after the look began.
        expect(posts).toBeLessThanOrEqual(32);
        expect(files.filter((line) => line.status === 'done').length).toBe(service.uploads().length);
      } finally {
        release();
        await relay.close();
        await service.close();
      }
    },
  );
});

describe('a Ctrl-C during the run look at the listing after a first drop', () => {
  it(
    'ends the run at once (130); the next run sends each file not redacted, each recording reaching the service once',
    { timeout: 120_000 },
    async () => {
      const service = await startCleanRoomService({ listSourceFile: true });
      let release = () => {};
      const held = new Promise<void>((resolve) => (release = resolve));
      let hold = true;
      let dropped = false;
      const relay = await startInterceptingRelay(service.baseUrl, async (req) => {
        if (hold && req.method === 'GET' && req.url?.startsWith('/api/jobs')) return void (await held);
        if (req.method !== 'POST' || req.url !== REDACTION || dropped) return 'pass';
        dropped = true;
        req.socket.destroy();
      });
      try {
        const inputs = await speechInputs(dir.path, FILES);
        const env = isolatedEnv(join(dir.path, '.config'), {
          VREDACT_BASE_URL: relay.baseUrl,
          VREDACT_TOKEN: service.token,
        });
        const args = ['redact', inputs, '-o', join(dir.path, 'out'), '--json', '-c', '1', '--timeout', '120'];
        const child = runCli(args, { env });
        await until(
          async () =>
            relay.received.some((r) => r.method === 'GET' && r.url?.startsWith('/api/jobs')) ||
            child.exitCode !== null,
          60_000,
        );
        child.kill('SIGINT');
        const first = await child;
        expect(first.exitCode, String(first.stderr)).toBe(130);
        // Interrupted, not a base URL that does not answer: the look was cut short, it said nothing.
        expect(String(first.stderr)).not.toContain('nothing at the base URL has answered');
        expect(String(first.stderr)).toMatch(/^error: interrupted: run the same command again/m);
        // The cut upload's fate is unknown: its `uploading` line stays the latest, for the next run.
        expect(Object.values(await latestEvents(join(dir.path, 'out')))).toContain('uploading');

        hold = false;
        release();
        const second = await runCli(args, { env });
        expect(second.exitCode, String(second.stderr)).toBe(0);
        const written = (await readdir(join(dir.path, 'out'))).filter((name) => name.endsWith('.wav'));
        expect(written).toHaveLength(FILES);
        expect(service.uploads()).toHaveLength(FILES);
      } finally {
        release();
        await relay.close();
        await service.close();
      }
    },
  );
});
