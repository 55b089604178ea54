/**
 * A scripted service that hands out signed URLs pointing back at itself, for download tests:
 * `POST /api/jobs/<job>/files/download-url` answers `/files/<name>`, and `GET /files/<name>` is
 * answered by `serveFile` (default: `files[name]`, 404 when missing). Every job's content lists the
 * names of `files`, in order, with the duration `durations` gives each (none when it gives none).
 */
import type { ServerResponse } from 'node:http';
import { type ScriptedServer, startScriptedServer } from './scripted-server.js';

export type FileServer = (name: string, res: ServerResponse) => void | Promise<void>;

export async function startFileHost(
  files: Record<string, Buffer>,
  serveFile?: FileServer,
  /** Answer every API request with 401, as for a revoked token. */
  refuseToken = false,
  /** Each listed file's `audio_duration`, in seconds. */
  durations: Record<string, number> = {},
): Promise<ScriptedServer & { fileGets: (name: string) => number }> {
  const server = await startScriptedServer(async (req, res, body) => {
    const url = new URL(req.url ?? '/', 'http://x');
    if (refuseToken && url.pathname.startsWith('/api/')) {
      res.writeHead(401, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: 'unauthorized', message: 'invalid token' }));
      return;
    }
    if (req.method === 'GET' && /^\/api\/jobs\/[^/]+\/content$/.test(url.pathname)) {
      const jobContent = Object.keys(files).map((name, i) => ({
        id: i + 1,
        job_id: 'job1',
        file_name: name,
        audio_duration: durations[name] ?? null,
        created_at: '2024-01-01T00:00:00Z',
      }));
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ jobContent }));
      return;
    }
    if (req.method === 'POST' && url.pathname.endsWith('/files/download-url')) {
      const { fileName } = JSON.parse(body.toString('utf8')) as { fileName: string };
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ signedUrl: `${server.baseUrl}/files/${encodeURIComponent(fileName)}` }));
      return;
    }
    if (req.method === 'GET' && url.pathname.startsWith('/files/')) {
      const name = decodeURIComponent(url.pathname.slice('/files/'.length));
      if (serveFile) return serveFile(name, res);
      const bytes = files[name];
      if (!bytes) {
        res.writeHead(404, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: 'not_found', message: 'no such file' }));
        return;
      }
      res.writeHead(200, { 'content-type': 'audio/wav', 'content-length': String(bytes.length) });
      res.end(bytes);
      return;
    }
    res.writeHead(404);
    res.end();
  });
  return {
    ...server,
    // `received` is the live array of the server: read it through the getter each time.
    get received() {
      return server.received;
    },
    fileGets: (name) =>
      server.received.filter((r) => r.method === 'GET' && r.url === `/files/${encodeURIComponent(name)}`)
        .length,
  };
}
