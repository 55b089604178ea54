/**
 * A `100 Continue` that vredact did not ask for (it sends no `Expect`), before each final answer, as a
 * proxy that adds `Expect` on its way to the service and relays the 100 back sends it: RFC 9110 has a
 * client pass over it. Through the built binary, the 100 written before the upload's body is read, in
 * pieces, or twice.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { isolatedEnv, runCli, tempDirPerTest } from '../helpers/cli.js';
import { startConnectProxy, startTlsFront, TEST_CA } from '../helpers/connect-proxy.js';
import { isWav, listFiles } from '../helpers/e2e.js';
import { sendJson } from '../helpers/scripted-server.js';
import { answerWithSpeech, speechInputs } from '../helpers/speech-files.js';

const TOKEN = 'vr_continue_0123456789abcdef';
const REDACTION = '/api/speech-to-speech-biometric-redaction';
const dir = tempDirPerTest('vredact-unasked-continue-');

/** How the 100 comes: whole, in two writes of the socket, two of them, or after a 103. */
type ContinueWay = 'whole' | 'split' | 'twice' | 'after-hints';

const pause = () => new Promise((resolve) => setTimeout(resolve, 20));

async function sendContinue(socket: Socket, way: ContinueWay): Promise<void> {
  if (way === 'split') {
    socket.write('HTTP/1.1 10');
    await pause();
    socket.write('0 Continue\r\nX-Proxy: relayed\r');
    await pause();
    socket.write('\n\r\n');
    return;
  }
  if (way === 'after-hints')
    socket.write('HTTP/1.1 103 Early Hints\r\nLink: </style.css>; rel=preload\r\n\r\n');
  socket.write('HTTP/1.1 100 Continue\r\n\r\n');
  if (way === 'twice') socket.write('HTTP/1.1 100 Continue\r\nVia: 1.1 gateway\r\n\r\n');
}

const servers: Array<() => Promise<void>> = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((close) => close()));
});

/** A service answering every request with a 100 first (before its body is read), then its answer. */
async function continuingService(way: ContinueWay) {
  const requests: string[] = [];
  const sockets = new Set<Socket>();
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    requests.push(`${req.method} ${req.url}`);
    void (async () => {
      await sendContinue(req.socket, way);
      for await (const chunk of req) void chunk;
      if (req.url === REDACTION) return answerWithSpeech(res);
      if (req.url === '/api/jobs')
        return sendJson(res, 200, { jobs: [{ job_id: 'j1', token: 't', created_at: '' }] });
      sendJson(res, 404, { error: 404, message: 'not found' });
    })();
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  servers.push(
    () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  );
  const { port } = server.address() as AddressInfo;
  return { baseUrl: `http://127.0.0.1:${port}`, requests };
}

describe('a 100 Continue no request asked for is passed over', () => {
  test.each<ContinueWay>(['whole', 'split', 'twice', 'after-hints'])(
    '%s: the upload is redacted and saved, each request sent once; jobs list reads its listing',
    async (way) => {
      const service = await continuingService(way);
      const env = isolatedEnv(join(dir.path, '.config'), {
        VREDACT_BASE_URL: service.baseUrl,
        VREDACT_TOKEN: TOKEN,
      });
      const inputs = await speechInputs(dir.path, 2);
      const out = join(dir.path, 'out');
      const run = await runCli(['redact', inputs, '-o', out], { env });
      expect(run.exitCode, String(run.stderr)).toBe(0);
      expect(await listFiles(out)).toEqual(expect.arrayContaining(['call-0.wav', 'call-1.wav']));
      expect(await isWav(join(out, 'call-0.wav'))).toBe(true);
      expect(service.requests.filter((line) => line === `POST ${REDACTION}`)).toHaveLength(2);

      const jobs = await runCli(['jobs', 'list', '--json'], { env });
      expect(jobs.exitCode, String(jobs.stderr)).toBe(0);
      expect((JSON.parse(String(jobs.stdout)) as Array<{ job_id: string }>).map((job) => job.job_id)).toEqual(
        ['j1'],
      );
    },
  );
});

describe('over TLS, in a proxy tunnel', () => {
  test('the 100 in the tunnel is passed over, the CONNECT answer read as ever; each upload sent once', async () => {
    const service = await continuingService('split');
    const front = await startTlsFront(Number(new URL(service.baseUrl).port));
    const proxy = await startConnectProxy(['service.test']);
    servers.push(
      () => front.close(),
      () => proxy.close(),
    );
    const env = isolatedEnv(join(dir.path, '.config'), {
      VREDACT_BASE_URL: `https://service.test:${front.port}`,
      VREDACT_TOKEN: TOKEN,
      NODE_EXTRA_CA_CERTS: TEST_CA,
      HTTPS_PROXY: proxy.url,
    });
    const inputs = await speechInputs(dir.path, 3);
    const out = join(dir.path, 'out');
    // One at a time: the uploads after the first go on the connection kept alive.
    const run = await runCli(['redact', inputs, '-o', out, '-c', '1'], { env });
    expect(run.exitCode, String(run.stderr)).toBe(0);
    expect(await listFiles(out)).toEqual(expect.arrayContaining(['call-0.wav', 'call-1.wav', 'call-2.wav']));
    expect(await isWav(join(out, 'call-2.wav'))).toBe(true);
    expect(service.requests.filter((line) => line === `POST ${REDACTION}`)).toHaveLength(3);
    expect(proxy.connects.length).toBeGreaterThanOrEqual(1);
  });
});
