/**
 * A service on an ephemeral loopback port that closes keep-alive connections as servers and proxies
 * in front of real services do: after an idle time (nginx `keepalive_timeout`, an ALB's idle timeout,
 * Node.js's `keepAliveTimeout`), with or without saying so in a `Keep-Alive: timeout=N` header; after
 * a number of answers on one connection (nginx `keepalive_requests`), with or without `Connection:
 * close` on the last; an idle one ended with a FIN or a reset. Uploads are answered at once with the
 * uploaded WAV sent back as `audio/wav`, its last byte changed (a valid result of the input's
 * duration, and not the upload itself); `GET /api/jobs` lists
 * no job. It counts what it answered per file name, so a test sees any upload taken twice.
 *
 * `closeLatencyMs` stands in for the network between client and server: a close decided at time t
 * reaches the client only at t + latency, so a request that arrives in that window was sent on a
 * connection the client still believed open; it is met by the close, with no answer, as on a real
 * network. (On loopback the FIN arrives at once and that window is microseconds wide.)
 */
import http from 'node:http';
import type { Socket } from 'node:net';
import { drain, listen, originOf, readMultipart } from './clean-room-http.js';
import type { ReceivedRequest } from './clean-room-server.js';
import { changedWav } from './result-wav.js';

export const REDACT_PATH = '/api/speech-to-speech-biometric-redaction';

export interface ClosingServerOptions {
  /** Ends a connection idle this long after its last answer; undefined: never. */
  idleCloseMs?: number;
  /** Says `Keep-Alive: timeout=<idleCloseMs in whole seconds, rounded down>` on every answer. */
  advertiseIdle?: boolean;
  /** Ends a connection with a FIN after this many answers; undefined: never. */
  requestsPerConnection?: number;
  /** Says `Connection: close` on the last answer of a connection. */
  announceLast?: boolean;
  /** How an idle connection is ended: 'fin' (a close) or 'rst' (a reset). */
  idleCloseWith?: 'fin' | 'rst';
  /** See the module's comment; 0: a close reaches the client as fast as loopback carries it. */
  closeLatencyMs?: number;
  /**
   * Every n-th upload is answered `429 Retry-After: 1`: the client's gate holds every request about
   * a second, so its connections sit idle about as long as a one-second idle timeout.
   */
  throttleEvery?: number;
}

export interface ClosingServer {
  baseUrl: string;
  /** Uploads answered with their result, by the input's file name: 2 is a file taken twice. */
  answered: Map<string, number>;
  /** Requests that arrived on a connection already closing and were met by the close. */
  metByClose: number;
  /** Connections the server accepted. */
  connections: number;
  close(): Promise<void>;
}

const RIFF = Buffer.from('RIFF');

interface ConnectionState {
  answers: number;
  idleTimer?: NodeJS.Timeout;
  /** Set once the server decided to end it; the close itself follows after closeLatencyMs. */
  closing: boolean;
}

export async function startClosingServer(options: ClosingServerOptions = {}): Promise<ClosingServer> {
  const latency = options.closeLatencyMs ?? 0;
  const states = new WeakMap<Socket, ConnectionState>();
  const sockets = new Set<Socket>();
  const answered = new Map<string, number>();
  const stats = { metByClose: 0, connections: 0, uploads: 0 };

  const end = (socket: Socket, how: 'fin' | 'rst'): void => {
    if (how === 'rst') socket.resetAndDestroy();
    else socket.destroySoon();
  };
  const decideToClose = (socket: Socket, how: 'fin' | 'rst'): void => {
    const state = states.get(socket);
    if (!state || state.closing) return;
    state.closing = true;
    if (latency === 0) end(socket, how);
    else setTimeout(() => end(socket, how), latency).unref();
  };
  const armIdle = (socket: Socket): void => {
    const state = states.get(socket);
    if (!state || options.idleCloseMs === undefined) return;
    clearTimeout(state.idleTimer);
    state.idleTimer = setTimeout(
      () => decideToClose(socket, options.idleCloseWith ?? 'fin'),
      options.idleCloseMs,
    );
    state.idleTimer.unref();
  };

  const headersFor = (state: ConnectionState): http.OutgoingHttpHeaders => {
    const headers: http.OutgoingHttpHeaders = {};
    const last =
      options.requestsPerConnection !== undefined && state.answers >= options.requestsPerConnection;
    if (last && options.announceLast) headers.connection = 'close';
    else if (options.advertiseIdle && options.idleCloseMs !== undefined)
      headers['keep-alive'] = `timeout=${Math.floor(options.idleCloseMs / 1000)}`;
    return headers;
  };

  const answer = (
    req: http.IncomingMessage,
    res: http.ServerResponse,
    status: number,
    type: string,
    body: Buffer,
    extra: http.OutgoingHttpHeaders = {},
  ): void => {
    const socket = req.socket;
    const state = states.get(socket)!;
    state.answers++;
    res.writeHead(status, {
      'content-type': type,
      'content-length': body.length,
      ...extra,
      ...headersFor(state),
    });
    res.end(body);
    res.on('finish', () => {
      const capped =
        options.requestsPerConnection !== undefined && state.answers >= options.requestsPerConnection;
      if (capped) decideToClose(socket, 'fin');
      else armIdle(socket);
    });
  };
  const json = (value: unknown): Buffer => Buffer.from(JSON.stringify(value));

  const handle = async (req: http.IncomingMessage, res: http.ServerResponse): Promise<void> => {
    const state = states.get(req.socket)!;
    clearTimeout(state.idleTimer);
    if (state.closing) {
      // The server closed this connection before the request reached it: nothing was read.
      stats.metByClose++;
      req.socket.resetAndDestroy();
      return;
    }
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    if (req.method === 'GET' && path === '/api/jobs') {
      await drain(req);
      return answer(req, res, 200, 'application/json', json({ total: 0, jobs: [], next_page: null }));
    }
    if (req.method !== 'POST' || path !== REDACT_PATH) {
      await drain(req);
      return answer(req, res, 404, 'application/json', json({ error: 40400, message: 'No such route' }));
    }
    const record: ReceivedRequest = {
      method: 'POST',
      path,
      authorization: req.headers.authorization,
      fields: {},
    };
    const upload = await readMultipart(req, record);
    stats.uploads++;
    if (options.throttleEvery !== undefined && stats.uploads % options.throttleEvery === 0) {
      const body = json({ error: 42901, message: 'Too many requests, slow down' });
      return answer(req, res, 429, 'application/json', body, { 'retry-after': '1' });
    }
    const at = upload?.indexOf(RIFF) ?? -1;
    if (!upload || at === -1) {
      return answer(
        req,
        res,
        400,
        'application/json',
        json({ error: 40002, message: 'source_audio is not WAV audio' }),
      );
    }
    // vredact tags each upload's name (`call-0.78c1ff7f.wav`); the input's name is counted.
    const name = (record.fileName ?? '').replace(/\.[0-9a-f]{8}(\.[^.]*)$/, '$1');
    answered.set(name, (answered.get(name) ?? 0) + 1);
    answer(req, res, 200, 'audio/wav', changedWav(upload.subarray(at)));
  };

  const server = http.createServer((req, res) => {
    handle(req, res).catch(() => res.destroy());
  });
  // The server's own idle handling is off: the options above are the only closes it makes.
  server.keepAliveTimeout = 0;
  server.on('connection', (socket: Socket) => {
    stats.connections++;
    sockets.add(socket);
    states.set(socket, { answers: 0, closing: false });
    socket.on('close', () => {
      clearTimeout(states.get(socket)?.idleTimer);
      sockets.delete(socket);
    });
    socket.on('error', () => undefined);
  });
  await listen(server);
  return {
    baseUrl: originOf(server),
    answered,
    get metByClose() {
      return stats.metByClose;
    },
    get connections() {
      return stats.connections;
    },
    close: async () => {
      for (const socket of sockets) socket.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
