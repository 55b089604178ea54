/**
 * The routes of a scripted asynchronous service (scripted-server.ts): every upload is answered with a
 * job, finished at once, whose content lists the upload and its result, 7 s of 16 kHz speech.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { makeWav } from './mp3.js';
import { type ScriptedServer, sendJson, startScriptedServer } from './scripted-server.js';

const REDACT = '/api/speech-to-speech-biometric-redaction';

/** Answers `req` as the asynchronous service does, its signed links on `baseUrl()`. */
export function asyncJobRoutes(baseUrl: () => string) {
  const uploads = new Map<string, string>();
  return (req: IncomingMessage, res: ServerResponse, body: Buffer): void => {
    const url = new URL(req.url ?? '/', 'http://x');
    if (req.method === 'POST' && url.pathname === REDACT) {
      const jobId = `job-${uploads.size + 1}`;
      uploads.set(jobId, /filename="([^"]+)"/.exec(body.toString('latin1'))?.[1] ?? 'upload.wav');
      return sendJson(res, 202, { job_id: jobId });
    }
    const content = /^\/api\/jobs\/([^/]+)\/content$/.exec(url.pathname);
    if (req.method === 'GET' && content) {
      const jobId = decodeURIComponent(content[1] ?? '');
      const uploadName = uploads.get(jobId) ?? 'gone.wav';
      const item = (id: number, fileName: string) => ({
        id,
        job_id: jobId,
        file_name: fileName,
        audio_duration: 7,
        created_at: '2026-01-01T00:00:00Z',
      });
      return sendJson(res, 200, {
        jobContent: [item(1, uploadName), item(2, uploadName.replace(/\.wav$/, '.redacted.wav'))],
      });
    }
    if (req.method === 'POST' && url.pathname.endsWith('/files/download-url'))
      return sendJson(res, 200, { signedUrl: `${baseUrl()}/files/${url.pathname.split('/')[3]}` });
    if (req.method === 'GET' && url.pathname.startsWith('/files/')) {
      const wav = makeWav(7, 16_000);
      res.writeHead(200, { 'content-type': 'audio/wav', 'content-length': wav.length });
      res.end(wav);
      return;
    }
    sendJson(res, 200, { jobs: [] });
  };
}

/**
 * Answers the first request it is given `status` with a wait of 30 s (Retry-After), and says so;
 * false for every later one.
 */
export function refusalOnce(status: number): (res: ServerResponse) => boolean {
  let refused = false;
  return (res) => {
    if (refused) return false;
    refused = true;
    res.writeHead(status, { 'content-type': 'application/json', 'retry-after': '30' });
    res.end(JSON.stringify({ error: 'unavailable', message: 'try again later' }));
    return true;
  };
}

/** How many requests of `method` to `url` the server received. */
export function requestsOf(target: ScriptedServer, method: string, url: string): number {
  return target.received.filter((r) => r.method === method && r.url === url).length;
}

/**
 * The asynchronous service, holding each result download (GET /files/…) from `hold()` until
 * `release()` answers them all and holds no more.
 */
export async function holdingResultsService() {
  const held: Array<() => void> = [];
  let holding = false;
  const routes = asyncJobRoutes(() => started.baseUrl);
  const started = await startScriptedServer((req, res, body) => {
    if (holding && req.method === 'GET' && req.url?.startsWith('/files/')) {
      held.push(() => routes(req, res, body));
      return;
    }
    routes(req, res, body);
  });
  return {
    server: started,
    heldCount: () => held.length,
    hold: () => {
      holding = true;
    },
    release: () => {
      holding = false;
      for (const answer of held.splice(0)) answer();
    },
  };
}
