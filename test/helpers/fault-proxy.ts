/**
 * A fault-injecting HTTP proxy on an ephemeral loopback port, in front of a service (`vredact
 * sandbox`): by a seeded draw per request, it resets the connection, stalls, cuts or corrupts the
 * answer, or answers a throttle or an HTML error page itself; the rest it relays whole. Signed URLs
 * in `download-url` answers are rewritten to point back at the proxy, so file downloads meet the
 * faults too.
 *
 *   const proxy = await startFaultProxy(sandbox.baseUrl, { seed: 7, rate: 0.25, stallMs: 2500 });
 *   try { …runCli([...], { env: { VREDACT_BASE_URL: proxy.baseUrl, … } }); proxy.setRate(0) … }
 *   finally { await proxy.close(); }
 *
 * What the client must make of each fault, it cannot tell apart from a flaky network or service:
 * a test asserts on invariants (every input done whole, or failed or pending with a reason).
 */
import { createHash } from 'node:crypto';
import { createServer, request, type IncomingHttpHeaders, type IncomingMessage } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { gzipSync } from 'node:zlib';
import { mulberry32 } from '../../src/audio/prng.js';

export const FAULTS = [
  'reset-before-body',
  'reset-after-body',
  'cut-body',
  'stall',
  'slow-headers',
  '429',
  '429-huge',
  '429-year',
  '429-negative',
  '429-past-date',
  '429-no-retry-after',
  '500-html',
  '502-html',
  '503-html',
  'truncated-json',
  'long-content-length',
  'broken-chunked',
  'corrupt-gzip',
] as const;
export type Fault = (typeof FAULTS)[number];

/** Only a JSON answer can be cut into JSON that does not parse. */
const JSON_ONLY: readonly Fault[] = ['truncated-json'];

export interface ProxiedRequest {
  method: string;
  /** Path and query as the client sent them. */
  url: string;
  /** The fault it met; undefined: relayed whole. */
  fault: Fault | undefined;
  /** `source_audio`'s file name, for a redaction upload. */
  uploadName?: string;
}

/** An answer the client received whole, as the service sent it. */
export interface DeliveredAnswer {
  url: string;
  status: number;
  sha256: string;
}

export interface FaultProxyOptions {
  seed: number;
  /** Share of requests that meet a fault (0 to 1). */
  rate: number;
  /** How long a stalled request hears nothing before its connection is cut. */
  stallMs: number;
  /** How long `slow-headers` holds the answer's headers (shorter than the client's timeout). */
  slowHeadersMs?: number;
}

export interface FaultProxy {
  baseUrl: string;
  requests: ProxiedRequest[];
  delivered: DeliveredAnswer[];
  setRate(rate: number): void;
  close(): Promise<void>;
}

interface UpstreamAnswer {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'content-length', 'host']);

function readBody(stream: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    stream.on('data', (chunk: Buffer) => chunks.push(chunk));
    stream.on('end', () => resolve(Buffer.concat(chunks)));
    stream.on('error', reject);
  });
}

function forward(origin: string, req: IncomingMessage, body: Buffer): Promise<UpstreamAnswer> {
  const headers: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (value !== undefined && !HOP_BY_HOP.has(name)) headers[name] = value;
  }
  headers['content-length'] = String(body.length);
  return new Promise((resolve, reject) => {
    const upstream = request(new URL(req.url ?? '/', origin), { method: req.method, headers }, (answer) => {
      readBody(answer).then(
        (bytes) => resolve({ status: answer.statusCode ?? 502, headers: answer.headers, body: bytes }),
        reject,
      );
    });
    upstream.on('error', reject);
    upstream.end(body);
  });
}

/** Relayed answer headers, without those that describe the framing the proxy redoes. */
function endToEnd(headers: IncomingHttpHeaders): Record<string, string | string[]> {
  const kept: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined && !HOP_BY_HOP.has(name)) kept[name] = value;
  }
  return kept;
}

function rawHead(status: number, headers: Record<string, string | string[]>): string {
  const lines = [`HTTP/1.1 ${status} X`];
  for (const [name, value] of Object.entries(headers)) {
    for (const one of Array.isArray(value) ? value : [value]) lines.push(`${name}: ${one}`);
  }
  return `${lines.join('\r\n')}\r\n\r\n`;
}

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

export async function startFaultProxy(
  upstreamBaseUrl: string,
  options: FaultProxyOptions,
): Promise<FaultProxy> {
  const random = mulberry32(options.seed);
  let rate = options.rate;
  const requests: ProxiedRequest[] = [];
  const delivered: DeliveredAnswer[] = [];
  const sockets = new Set<Socket>();
  const timers = new Set<NodeJS.Timeout>();
  /** Origin of the signed URLs' host, learnt from the first download-url answer. */
  let filesOrigin: string | undefined;
  let baseUrl = '';

  const pick = (jsonGet: boolean): Fault | undefined => {
    // Two draws per request whatever the rate, so one seed gives one sequence of faults.
    const hit = random();
    const which = random();
    if (hit >= rate) return undefined;
    const choices = jsonGet ? FAULTS : FAULTS.filter((fault) => !JSON_ONLY.includes(fault));
    return choices[Math.floor(which * choices.length)];
  };

  const hold = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        timers.delete(timer);
        resolve();
      }, ms);
      timers.add(timer);
    });

  const server = createServer((req, res) => {
    const url = req.url ?? '/';
    const isFile = url.startsWith('/files/');
    const jsonGet = req.method === 'GET' && !isFile;
    const fault = pick(jsonGet);
    const record: ProxiedRequest = { method: req.method ?? '', url, fault };
    requests.push(record);
    const socket = req.socket;
    if (fault === 'reset-before-body') {
      socket.destroy();
      return;
    }
    void (async () => {
      const body = await readBody(req);
      const upload = /filename="([^"]*)"/.exec(body.subarray(0, 4096).toString('latin1'));
      if (upload) record.uploadName = upload[1];
      const answerItself = (status: number, headers: Record<string, string>, text: string) => {
        res.writeHead(status, { 'content-type': 'text/html; charset=utf-8', ...headers });
        res.end(text);
      };
      // A proxy's error page, with what a careless one echoes: the credentials and an escape sequence.
      const page = (status: number) =>
        `<html><body><h1>${status}</h1>\x1b[31m${req.headers.authorization ?? ''}\x1b[0m</body></html>`;
      switch (fault) {
        case 'stall':
          await hold(options.stallMs);
          socket.destroy();
          return;
        case '429':
          return answerItself(429, { 'retry-after': '1' }, page(429));
        case '429-huge':
          return answerItself(429, { 'retry-after': '1e9' }, page(429));
        case '429-year':
          return answerItself(429, { 'retry-after': '1000000000' }, page(429));
        case '429-negative':
          return answerItself(429, { 'retry-after': '-30' }, page(429));
        case '429-past-date':
          return answerItself(429, { 'retry-after': 'Wed, 21 Oct 2015 07:28:00 GMT' }, page(429));
        case '429-no-retry-after':
          return answerItself(429, {}, page(429));
        case '500-html':
          return answerItself(500, {}, page(500));
        case '502-html':
          return answerItself(502, {}, page(502));
        case '503-html':
          return answerItself(503, {}, page(503));
        default:
          break;
      }
      const origin = isFile ? filesOrigin : upstreamBaseUrl;
      if (!origin) {
        res.writeHead(502);
        res.end();
        return;
      }
      const answer = await forward(origin, req, body);
      let bytes = answer.body;
      if (/\/files\/download-url$/.test(url) && answer.status === 200) {
        const parsed = JSON.parse(bytes.toString('utf8')) as { signedUrl: string };
        const signed = new URL(parsed.signedUrl);
        filesOrigin = signed.origin;
        parsed.signedUrl = `${baseUrl}${signed.pathname}${signed.search}`;
        bytes = Buffer.from(JSON.stringify(parsed));
      }
      const headers = endToEnd(answer.headers);
      switch (fault) {
        case 'reset-after-body':
          socket.destroy();
          return;
        case 'cut-body':
          res.writeHead(answer.status, { ...headers, 'content-length': String(bytes.length) });
          res.write(bytes.subarray(0, Math.floor(bytes.length / 2)));
          socket.destroy();
          return;
        case 'truncated-json': {
          const cut = bytes.subarray(0, Math.max(1, Math.floor(bytes.length * 0.6)));
          res.writeHead(200, { ...headers, 'content-length': String(cut.length) });
          res.end(cut);
          return;
        }
        case 'long-content-length':
          res.writeHead(answer.status, { ...headers, 'content-length': String(bytes.length + 100) });
          res.write(bytes);
          socket.end();
          return;
        case 'broken-chunked': {
          const half = bytes.subarray(0, Math.floor(bytes.length / 2));
          socket.write(rawHead(answer.status, { ...headers, 'transfer-encoding': 'chunked' }));
          socket.write(`${half.length.toString(16)}\r\n`);
          socket.write(half);
          socket.end('\r\nzz-not-a-chunk-size\r\n');
          return;
        }
        case 'corrupt-gzip': {
          const gzip = gzipSync(bytes);
          // Past the 10-byte header: the deflate stream and its CRC no longer agree.
          for (let i = 12; i < gzip.length - 8; i += 7) gzip[i] = (gzip[i] ?? 0) ^ 0x5a;
          res.writeHead(answer.status, {
            ...headers,
            'content-encoding': 'gzip',
            'content-length': String(gzip.length),
          });
          res.end(gzip);
          return;
        }
        case 'slow-headers':
          await hold(options.slowHeadersMs ?? 200);
          break;
        default:
          break;
      }
      res.writeHead(answer.status, { ...headers, 'content-length': String(bytes.length) });
      res.end(bytes, () => delivered.push({ url, status: answer.status, sha256: sha256(bytes) }));
    })().catch(() => socket.destroy());
  });
  server.on('connection', (socket) => {
    socket.setNoDelay(true);
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    baseUrl,
    requests,
    delivered,
    setRate: (next) => {
      rate = next;
    },
    close: async () => {
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
