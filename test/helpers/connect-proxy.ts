/**
 * A proxy and a TLS front for the proxy tests, each on an ephemeral loopback port.
 *
 * - `startConnectProxy`: an HTTP proxy that opens CONNECT tunnels, reaching the host names it is
 *   given at 127.0.0.1 (so that `service.test` needs no DNS); it records every CONNECT, every request
 *   sent to it as a forward proxy (which vredact must never send) and every byte the client sent
 *   through its tunnels, and can ask for credentials or refuse tunnels with a status.
 * - `startTlsFront`: TLS for `service.test` (test/fixtures/tls) in front of a plain-http port (the
 *   sandbox), so that vredact talks https as it does to the real service.
 */
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage } from 'node:http';
import { type AddressInfo, connect, type Socket } from 'node:net';
import { join } from 'node:path';
import { createServer as createTlsServer } from 'node:tls';
import { readBeforeWriteFailure } from '../../src/api/early-answer.js';
import { REPO_ROOT } from './cli.js';

/** `service.test`'s certificate and key, and the authority that signed it. */
export const TLS_FIXTURES = join(REPO_ROOT, 'test', 'fixtures', 'tls');
/** The authority that signed `service.test`'s certificate: NODE_EXTRA_CA_CERTS of the client. */
export const TEST_CA = join(TLS_FIXTURES, 'ca.crt');

export interface ConnectProxy {
  /** `http://127.0.0.1:<port>`. */
  url: string;
  port: number;
  /** Each CONNECT: its target and its Proxy-Authorization header. */
  connects: Array<{ target: string; authorization: string | undefined }>;
  /** Request lines sent to the proxy as a forward proxy (`GET http://…`). */
  plainRequests: string[];
  /** Every byte the clients sent through the tunnels. */
  relayed(): Buffer;
  /** Answers every CONNECT with this status (undefined: opens tunnels again). */
  refuseWith(status: number | undefined): void;
  /** Asks for `user:password` (407 without them, or with others). */
  requireCredentials(user: string, password: string): void;
  close(): Promise<void>;
}

function listenOnLoopback(server: { listen: (port: number, host: string, cb: () => void) => unknown }) {
  return new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
}

/** A CONNECT proxy reaching `hosts` (names) at 127.0.0.1 on the port asked for; other hosts: 502. */
export async function startConnectProxy(hosts: readonly string[]): Promise<ConnectProxy> {
  const connects: ConnectProxy['connects'] = [];
  const plainRequests: string[] = [];
  const relayed: Buffer[] = [];
  const sockets = new Set<Socket>();
  let refusal: number | undefined;
  let credentials: string | undefined;
  const server = createServer((req, res) => {
    plainRequests.push(`${req.method} ${req.url}`);
    res.writeHead(501).end();
  });
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  server.on('connect', (req: IncomingMessage, client: Socket, head: Buffer) => {
    const target = req.url ?? '';
    const authorization = req.headers['proxy-authorization'];
    connects.push({ target, authorization });
    client.on('error', () => {});
    const answer = (status: number, text: string, extra = '') =>
      client.end(`HTTP/1.1 ${status} ${text}\r\n${extra}content-length: 0\r\n\r\n`);
    if (refusal !== undefined) return answer(refusal, 'Refused');
    if (credentials !== undefined && authorization !== credentials) {
      return answer(407, 'Proxy Authentication Required', 'proxy-authenticate: Basic realm="test"\r\n');
    }
    const [host, portText] = [
      target.slice(0, target.lastIndexOf(':')),
      target.slice(target.lastIndexOf(':') + 1),
    ];
    if (!hosts.includes(host)) return answer(502, 'Bad Gateway');
    // A proxy in C (squid, nginx) relays what the service answered before it stopped reading the
    // upload; Node.js would drop it on the failed write to the service (the bug early-answer.ts works
    // around), and the client could not read an answer that never reached it.
    const upstream = readBeforeWriteFailure(
      connect(Number(portText), '127.0.0.1', () => {
        client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
        if (head.length > 0) {
          relayed.push(Buffer.from(head));
          upstream.write(head);
        }
        client.on('data', (chunk: Buffer) => relayed.push(Buffer.from(chunk)));
        client.pipe(upstream).pipe(client);
      }),
    );
    sockets.add(upstream);
    upstream.on('close', () => sockets.delete(upstream));
    upstream.on('error', () => client.destroy());
  });
  await listenOnLoopback(server);
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    connects,
    plainRequests,
    relayed: () => Buffer.concat(relayed),
    refuseWith: (status) => {
      refusal = status;
    },
    requireCredentials: (user, password) => {
      credentials = `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
    },
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

export interface TlsFront {
  /** The port `service.test` answers https on. */
  port: number;
  close(): Promise<void>;
}

/** TLS for `service.test` on a loopback port, each connection relayed to `127.0.0.1:<backendPort>`. */
export async function startTlsFront(backendPort: number): Promise<TlsFront> {
  const sockets = new Set<Socket>();
  const track = (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => socket.destroy());
  };
  const server = createTlsServer(
    {
      key: readFileSync(join(TLS_FIXTURES, 'service.key')),
      cert: readFileSync(join(TLS_FIXTURES, 'service.crt')),
    },
    (secure) => {
      const backend = connect(backendPort, '127.0.0.1');
      track(secure);
      track(backend);
      secure.pipe(backend).pipe(secure);
    },
  );
  await listenOnLoopback(server);
  return {
    port: (server.address() as AddressInfo).port,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
