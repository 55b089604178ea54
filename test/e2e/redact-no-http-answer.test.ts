/**
 * A base URL whose port takes uploads but gives no HTTP answer, end to end against the built binary:
 * a port that speaks another protocol (an SSH banner), one that swallows uploads and never answers, an
 * `https://` URL whose port serves plain HTTP. Each stops the batch after the first failure, as a
 * closed port does, instead of handing every recording of the batch to it; once the service has
 * answered in the run, the same failures are each file's own and the batch goes on.
 */
import { once } from 'node:events';
import { readdir } from 'node:fs/promises';
import { createServer as createHttpServer } from 'node:http';
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { isolatedEnv, runCli, tempDirPerTest } from '../helpers/cli.js';
import { answerWithSpeech, speechInputs } from '../helpers/speech-files.js';
import { startScriptedServer } from '../helpers/scripted-server.js';

const TOKEN = 'vr_nohttp_0123456789abcdef';
const REDACTION = '/api/speech-to-speech-biometric-redaction';
const dir = tempDirPerTest('vredact-nohttp-');

/** A TCP port that counts connections and bytes taken; `greet` is written to each connection. */
interface RawPort {
  port: number;
  connections: number;
  bytes: number;
  close(): Promise<void>;
}

async function rawPort(onConnection: (socket: Socket) => void): Promise<RawPort> {
  const sockets = new Set<Socket>();
  const state = { connections: 0, bytes: 0 };
  const server: Server = createServer((socket) => {
    state.connections++;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => {});
    socket.on('data', (chunk: Buffer) => {
      state.bytes += chunk.length;
    });
    onConnection(socket);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    port: (server.address() as AddressInfo).port,
    get connections() {
      return state.connections;
    },
    get bytes() {
      return state.bytes;
    },
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

interface Summary {
  done: number;
  failed: number;
  pending: number;
}

function summaryOf(stdout: string): Summary {
  const lines = stdout.trim().split('\n');
  return (JSON.parse(lines[lines.length - 1] as string) as { summary: Summary }).summary;
}

async function redact(baseUrl: string, files: number, extra: string[] = []) {
  const out = join(dir.path, 'out');
  const run = await runCli(
    ['redact', await speechInputs(dir.path, files), '-o', out, '-c', '2', '--json', ...extra],
    { env: isolatedEnv(dir.path, { VREDACT_BASE_URL: baseUrl, VREDACT_TOKEN: TOKEN }) },
  );
  const written = (await readdir(out).catch(() => [])).filter((name) => name.endsWith('.wav'));
  return { run, summary: summaryOf(String(run.stdout)), stderr: String(run.stderr), written };
}

describe('a base URL whose port gives no HTTP answer', () => {
  test('a port that speaks another protocol: the batch stops after the first answer, not every file sent', async () => {
    const ssh = await rawPort((socket) => socket.write('SSH-2.0-OpenSSH_9.6\r\n'));
    try {
      const { run, summary, stderr, written } = await redact(`http://127.0.0.1:${ssh.port}`, 12);
      expect(run.exitCode, stderr).toBe(1);
      // Before: 12 connections, each taking a whole upload, and 12 failures.
      expect(ssh.connections).toBeLessThanOrEqual(4);
      expect(summary.done).toBe(0);
      expect(summary.pending).toBeGreaterThanOrEqual(8);
      expect(written).toEqual([]);
      expect(stderr).toContain(`error: the batch stopped: redacting call-`);
      expect(stderr).toContain(`127.0.0.1:${ssh.port} answered something that is not HTTP/1.1`);
      expect(stderr).toContain('nothing at the base URL has answered in HTTP this run');
      expect(stderr).toContain('hint: check the service URL and its port');
    } finally {
      await ssh.close();
    }
  }, 60_000);

  test('a port that takes uploads and never answers: the batch stops after the first --timeout', async () => {
    const hole = await rawPort(() => {});
    try {
      const { run, summary, stderr } = await redact(`http://127.0.0.1:${hole.port}`, 12, ['--timeout', '1']);
      expect(run.exitCode, stderr).toBe(1);
      expect(hole.connections).toBeLessThanOrEqual(4);
      expect(summary.done).toBe(0);
      expect(summary.pending).toBeGreaterThanOrEqual(8);
      expect(stderr).toContain(`127.0.0.1:${hole.port} did not answer in time`);
      expect(stderr).toContain('nothing at the base URL has answered in HTTP this run');
      expect(stderr).toContain('if they are right, the service is not answering: try again later');
    } finally {
      await hole.close();
    }
  }, 60_000);

  test('an https:// URL whose port serves plain HTTP: nothing is sent, the batch stops at once', async () => {
    let requests = 0;
    const plain = createHttpServer((req, res) => {
      requests++;
      res.end();
    });
    plain.listen(0, '127.0.0.1');
    await once(plain, 'listening');
    const { port } = plain.address() as AddressInfo;
    try {
      const { run, summary, stderr } = await redact(`https://127.0.0.1:${port}`, 12);
      expect(run.exitCode, stderr).toBe(1);
      expect(requests).toBe(0);
      expect(summary.done).toBe(0);
      expect(summary.pending).toBeGreaterThanOrEqual(10);
      expect(stderr).toContain(`the TLS handshake with 127.0.0.1:${port} failed (wrong version number`);
      expect(stderr).toContain('an https:// URL whose port serves plain HTTP fails so');
    } finally {
      plain.closeAllConnections();
      await new Promise<void>((resolve) => plain.close(() => resolve()));
    }
  }, 60_000);

  test('once the service has answered, an upload it never answers is that file’s failure: the batch goes on', async () => {
    let uploads = 0;
    const service = await startScriptedServer(async (req, res) => {
      if (req.url !== REDACTION) {
        res.destroy();
        return;
      }
      // The first upload is answered; the others are taken and never answered.
      if (++uploads === 1) return answerWithSpeech(res);
    });
    try {
      const { run, summary, stderr, written } = await redact(service.baseUrl, 4, [
        '-c',
        '1',
        '--timeout',
        '1',
      ]);
      expect(run.exitCode, stderr).toBe(1);
      expect(uploads).toBe(4);
      expect(summary).toMatchObject({ done: 1, failed: 3, pending: 0 });
      expect(written).toHaveLength(1);
      expect(stderr).not.toContain('the batch stopped');
    } finally {
      await service.close();
    }
  }, 60_000);

  test('`jobs list` against a port that speaks another protocol: one line, not retried', async () => {
    const ssh = await rawPort((socket) => socket.end('SSH-2.0-OpenSSH_9.6\r\n'));
    try {
      const run = await runCli(['jobs', 'list'], {
        env: isolatedEnv(dir.path, {
          VREDACT_BASE_URL: `http://127.0.0.1:${ssh.port}`,
          VREDACT_TOKEN: TOKEN,
        }),
      });
      expect(run.exitCode).toBe(1);
      expect(String(run.stderr)).toBe(
        `error: listing jobs: 127.0.0.1:${ssh.port} answered something that is not HTTP/1.1 (Expected HTTP/, RTSP/ or ICE/)\n` +
          'hint: check the service URL and its port (the URL set in VREDACT_BASE_URL): something that is not an HTTP server listens there, or a proxy between garbles the answers',
      );
      // Before: retried 4 times (5 connections, about 5 s).
      expect(ssh.connections).toBe(1);
    } finally {
      await ssh.close();
    }
  }, 60_000);
});
