/**
 * A service behind a proxy that refuses uploads from their headers, on an ephemeral loopback port:
 * each upload the script answers early is answered at once (or after the first `readFirst` bytes of
 * its body), `Connection: close`, and its connection ended 5 ms later: with a FIN, the rest of the body
 * read and thrown away ('fin', nginx's lingering close), or destroyed with the rest unread, which the
 * kernel ends with a reset ('rst'); as nginx past `client_max_body_size`, or a gateway refusing a
 * token or throttling, do. Other uploads are read
 * whole and answered with their own WAV (a valid result); `GET /api/jobs` lists no job. With `tls`,
 * it speaks https as `service.test` (test/fixtures/tls), the answer and the close inside TLS.
 */
import { readFileSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { drain, readMultipart } from './clean-room-http.js';
import { changedWav } from './result-wav.js';
import type { ReceivedRequest } from './clean-room-shapes.js';
import { TLS_FIXTURES } from './connect-proxy.js';

/** What an upload is answered early with; undefined: it is read whole and answered with its WAV. */
export interface EarlyAnswer {
  status: number;
  headers?: Record<string, string>;
  body?: string;
}

export interface EarlyAnswerOptions {
  /** The early answer of the `index`-th upload of `fileName` (0 first), or undefined. */
  answer: (fileName: string, index: number) => EarlyAnswer | undefined;
  closeWith: 'fin' | 'rst';
  /** Bytes of the upload's body read before the early answer; 0: none. */
  readFirst?: number;
  /** https with `service.test`'s certificate, signed by test/fixtures/tls/ca.crt. */
  tls?: boolean;
}

export interface EarlyAnswerServer {
  /** `http://127.0.0.1:<port>`, or with `tls` `https://service.test:<port>`. */
  baseUrl: string;
  port: number;
  /** Method and path of every request, in arrival order. */
  requests: string[];
  /** Uploads answered early, by the upload's name as sent (the file's name, a hash, its extension). */
  early: Map<string, number>;
  /** Uploads read whole and answered with their WAV. */
  answered: Map<string, number>;
  close(): Promise<void>;
}

const RIFF = Buffer.from('RIFF');

export async function startEarlyAnswerServer(options: EarlyAnswerOptions): Promise<EarlyAnswerServer> {
  const requests: string[] = [];
  const early = new Map<string, number>();
  const answered = new Map<string, number>();
  const seen = new Map<string, number>();
  const handle: http.RequestListener = (req, res) => {
    requests.push(`${req.method} ${req.url}`);
    if (req.method === 'GET' && req.url?.startsWith('/api/jobs')) {
      void drain(req).then(() => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end('{"jobs":[]}');
      });
      return;
    }
    void handleUpload(req, res);
  };
  const server = options.tls
    ? https.createServer(
        {
          key: readFileSync(join(TLS_FIXTURES, 'service.key')),
          cert: readFileSync(join(TLS_FIXTURES, 'service.crt')),
        },
        handle,
      )
    : http.createServer(handle);

  /** At least the first `count` bytes of the body (all of it if shorter), the stream paused after. */
  function firstBytes(req: http.IncomingMessage, count: number): Promise<Buffer> {
    const chunks: Buffer[] = [];
    let size = 0;
    return new Promise((resolve) => {
      const done = () => {
        req.off('data', onData).off('end', done);
        req.pause();
        resolve(Buffer.concat(chunks));
      };
      const onData = (chunk: Buffer) => {
        chunks.push(chunk);
        size += chunk.length;
        if (size >= count) done();
      };
      req.on('data', onData).on('end', done);
    });
  }

  async function handleUpload(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    // The file's name is in the first part's head, within the first few hundred bytes.
    const head = await firstBytes(req, Math.max(options.readFirst ?? 0, 1));
    const name = /filename="([^"]+)"/.exec(head.toString('latin1'))?.[1] ?? '';
    const stem = name.replace(/\.[0-9a-f]{8}\.(wav|mp3)$/, '');
    const index = seen.get(stem) ?? 0;
    seen.set(stem, index + 1);
    const answer = options.answer(stem, index);
    if (answer) {
      early.set(stem, (early.get(stem) ?? 0) + 1);
      res.writeHead(answer.status, { 'content-type': 'text/html', connection: 'close', ...answer.headers });
      res.end(answer.body ?? '');
      setTimeout(() => {
        if (options.closeWith === 'rst') {
          req.socket.destroy();
        } else {
          req.socket.end();
          req.socket.resume();
        }
      }, 5);
      return;
    }
    const rest = await readMultipart(withHead(req, head), { fields: {} } as ReceivedRequest);
    const at = rest?.indexOf(RIFF) ?? -1;
    answered.set(stem, (answered.get(stem) ?? 0) + 1);
    res.writeHead(200, { 'content-type': 'audio/wav' });
    res.end(at >= 0 && rest ? changedWav(rest.subarray(at)) : Buffer.alloc(0));
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: options.tls ? `https://service.test:${port}` : `http://127.0.0.1:${port}`,
    port,
    requests,
    early,
    answered,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** The request with the bytes already read put back in front of the rest. */
function withHead(req: http.IncomingMessage, head: Buffer): http.IncomingMessage {
  req.unshift(head);
  return req;
}
