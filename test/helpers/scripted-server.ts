/**
 * A small hostile stand-in for the service, on an ephemeral loopback port: each test scripts the
 * answers (a text body labelled audio/wav, a WAV cut short, echoed tokens, escape sequences, 429s…)
 * and asserts on what the server received.
 *
 *   const server = await startScriptedServer(async (req, res, body) => { res.writeHead(200); res.end('…'); });
 *   try { …runCli([...], { env: isolatedEnv(dir, { VREDACT_BASE_URL: server.baseUrl, VREDACT_TOKEN: 'vr_test_…' }) }) }
 *   finally { await server.close(); }
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export interface ReceivedRequest {
  method: string;
  /** Path and query as sent. */
  url: string;
  headers: IncomingMessage['headers'];
  /** Bytes of the request body. */
  bodyBytes: number;
}

/** Answers one request; `body` is the whole request body (tests send small files). */
export type ScriptedHandler = (
  req: IncomingMessage,
  res: ServerResponse,
  body: Buffer,
  index: number,
) => void | Promise<void>;

export interface ScriptedServer {
  baseUrl: string;
  port: number;
  /** Every request received so far, in arrival order. */
  received: ReceivedRequest[];
  /** Connections open now: none once a killed client's last requests have all been taken in. */
  openConnections(): number;
  /** The connections open now, to tell whose they are (see chaos-service.ts). */
  openSockets(): Socket[];
  /** Stops taking connections (a new one is refused); those open go on until they end. */
  stopListening(): void;
  /** Destroys every open connection and stops listening. */
  close(): Promise<void>;
}

/** Largest request body the server keeps; a test never needs more. */
const MAX_BODY = 64 * 1024 * 1024;

/** `port`: listen on this one (a service back after an outage), not an ephemeral one. */
export async function startScriptedServer(handler: ScriptedHandler, port = 0): Promise<ScriptedServer> {
  const received: ReceivedRequest[] = [];
  const sockets = new Set<Socket>();
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_BODY) chunks.push(chunk);
    });
    req.on('end', () => {
      const index = received.length;
      received.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, bodyBytes: size });
      Promise.resolve(handler(req, res, Buffer.concat(chunks), index)).catch(() => {
        if (!res.headersSent) res.writeHead(500);
        res.end();
      });
    });
  });
  server.on('connection', (socket) => {
    // Headers and body leave together: no delayed-ACK stall on reused connections.
    socket.setNoDelay(true);
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', resolve);
  });
  const bound = (server.address() as AddressInfo).port;
  return {
    baseUrl: `http://127.0.0.1:${bound}`,
    port: bound,
    received,
    openConnections: () => sockets.size,
    openSockets: () => [...sockets],
    stopListening: () => server.close(),
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        if (!server.listening) {
          resolve();
          return;
        }
        server.close(() => resolve());
      }),
  };
}

/** Sends a JSON answer in one write. */
export function sendJson(
  res: ServerResponse,
  status: number,
  value: unknown,
  headers: Record<string, string> = {},
): void {
  sendJsonText(res, status, JSON.stringify(value), headers);
}

/** Sends a JSON answer as written: numbers a JavaScript number cannot hold (`{"id": 12345678901234567891}`). */
export function sendJsonText(
  res: ServerResponse,
  status: number,
  text: string,
  headers: Record<string, string> = {},
): void {
  const body = Buffer.from(text);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': body.length, ...headers });
  res.end(body);
}
