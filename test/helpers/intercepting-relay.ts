/**
 * A relay on an ephemeral loopback port in front of a stand-in service: each request is passed on and
 * its answer relayed whole, unless the test's `intercept` handles it first (drops its connection,
 * answers it itself, holds it a while). The relay keeps what it received, to assert on.
 *
 *   const relay = await startInterceptingRelay(service.baseUrl, async (req, res, body) => {
 *     if (req.method === 'POST') return void req.socket.destroy(); // dropped, no answer
 *     return 'pass';
 *   });
 *   try { …runCli([...], { env: { VREDACT_BASE_URL: relay.baseUrl, … } }) } finally { await relay.close(); }
 */
import { type IncomingMessage, request, type ServerResponse } from 'node:http';
import { type ScriptedServer, startScriptedServer } from './scripted-server.js';

/** Handles a request (and returns anything but 'pass'), or lets the relay pass it on. */
export type Intercept = (
  req: IncomingMessage,
  res: ServerResponse,
  body: Buffer,
  pass: () => Promise<RelayedAnswer>,
) => Promise<'pass' | void> | 'pass' | void;

/** The service's answer to a request passed on. */
export interface RelayedAnswer {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

/** Headers that describe one connection's framing, not the answer: the relay frames its own. */
const HOP_HEADERS = new Set(['connection', 'keep-alive', 'transfer-encoding', 'content-length']);

/** Passes `req` (with its whole `body`) on to `target` and reads the answer whole. */
function passOn(target: string, req: IncomingMessage, body: Buffer): Promise<RelayedAnswer> {
  const headers = { ...req.headers, host: new URL(target).host, 'content-length': String(body.length) };
  delete headers['transfer-encoding'];
  return new Promise((resolve, reject) => {
    const out = request(new URL(req.url ?? '/', target), { method: req.method, headers }, (answer) => {
      const chunks: Buffer[] = [];
      answer.on('data', (chunk: Buffer) => chunks.push(chunk));
      answer.on('error', reject);
      answer.on('end', () => {
        const kept: Record<string, string> = {};
        for (const [name, value] of Object.entries(answer.headers))
          if (!HOP_HEADERS.has(name) && typeof value === 'string') kept[name] = value;
        resolve({ status: answer.statusCode ?? 502, headers: kept, body: Buffer.concat(chunks) });
      });
    });
    out.on('error', reject);
    out.end(body);
  });
}

/** Writes a relayed answer to the client, framed by its length. */
export function relay(res: ServerResponse, answer: RelayedAnswer): void {
  res.writeHead(answer.status, { ...answer.headers, 'content-length': answer.body.length });
  res.end(answer.body);
}

export async function startInterceptingRelay(target: string, intercept: Intercept): Promise<ScriptedServer> {
  return startScriptedServer(async (req, res, body) => {
    const pass = () => passOn(target, req, body);
    if ((await intercept(req, res, body, pass)) === 'pass') relay(res, await pass());
  });
}
