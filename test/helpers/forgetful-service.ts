/**
 * A stand-in for the service that makes a job of each upload (answered 202 with its id), lists its
 * content with a result and serves that result (the upload with a changed byte), and forgets every job
 * at `forget()` (a restart, say). Its job listing is empty, as the interface's shape.
 */
import { changedWav, uploadedWav } from './result-wav.js';
import { type ScriptedServer, sendJson, startScriptedServer } from './scripted-server.js';

export const REDACT = '/api/speech-to-speech-biometric-redaction';

/** A service that makes a job of each upload and forgets every job at `forget()` (a restart, say). */
export async function startForgetfulService() {
  const uploaded = new Map<string, Buffer>();
  let era = 1;
  const server: ScriptedServer = await startScriptedServer((req, res, body) => {
    const url = req.url ?? '';
    if (req.method === 'POST' && url === REDACT) {
      const jobId = `e${era}-j${uploaded.size + 1}`;
      uploaded.set(jobId, Buffer.from(uploadedWav(body, req.headers['content-type'] ?? '')));
      return sendJson(res, 202, { job_id: jobId });
    }
    const known = (jobId: string | undefined) => jobId !== undefined && jobId.startsWith(`e${era}-`);
    const content = /^\/api\/jobs\/([^/]+)\/content$/.exec(url);
    if (content && known(content[1])) {
      const item = (id: number, file_name: string) => ({
        id,
        job_id: content[1],
        file_name,
        audio_duration: 2,
        created_at: '2026-11-28T00:00:00Z',
      });
      return sendJson(res, 200, { jobContent: [item(1, 'upload.wav'), item(2, `result_${content[1]}.wav`)] });
    }
    const link = /^\/api\/jobs\/([^/]+)\/files\/download-url$/.exec(url);
    if (link && known(link[1]))
      return sendJson(res, 200, { signedUrl: `${server.baseUrl}/objects/${link[1]}` });
    const object = uploaded.get(/^\/objects\/([^/?]+)$/.exec(url)?.[1] ?? '');
    if (object) {
      const result = changedWav(object);
      res.writeHead(200, { 'content-type': 'audio/wav', 'content-length': result.length });
      return void res.end(result);
    }
    if (url === '/api/jobs') return sendJson(res, 200, { jobs: [] });
    sendJson(res, 404, { error: 'not_found', message: 'job not found' });
  });
  return {
    server,
    forget: () => void era++,
    uploads: () => server.received.filter((r) => r.method === 'POST' && r.url === REDACT).length,
  };
}
