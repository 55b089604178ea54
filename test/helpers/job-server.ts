/**
 * A service with one job for the support commands' tests: its listing answered by `answerListing`
 * (the test's point), each link request given a link back to this server, and each file a short
 * speech WAV.
 */
import type { ServerResponse } from 'node:http';
import { type ScriptedServer, sendJson, startScriptedServer } from './scripted-server.js';
import { speechSlice } from './speech-files.js';

const CONTENT = /^\/api\/jobs\/[^/]+\/content$/;

export async function startJobServer(answerListing: (res: ServerResponse) => void): Promise<ScriptedServer> {
  const wav = await speechSlice(1600);
  const server = await startScriptedServer((req, res, body) => {
    const path = req.url ?? '';
    if (CONTENT.test(path)) return answerListing(res);
    if (path.endsWith('/files/download-url')) {
      const { fileName } = JSON.parse(body.toString('utf8')) as { fileName: string };
      return sendJson(res, 200, { signedUrl: `${server.baseUrl}/files/${fileName}` });
    }
    res.writeHead(200, { 'content-type': 'audio/wav', 'content-length': wav.length });
    res.end(wav);
  });
  return server;
}

/** What a file of a job-files server answers, by the name its link names. */
export type JobFile = (res: ServerResponse) => void | Promise<void>;

/**
 * A service with one job, `job1`, for `download`'s tests: its listing the items given, each link
 * request answered with a link back to this server (the names asked for pushed to `asked`), each file
 * by `files[name]`, anything else 404.
 */
export async function startJobFilesServer(
  items: ReadonlyArray<{ file_name: string; audio_duration?: number }>,
  files: Readonly<Record<string, JobFile>>,
  asked: string[] = [],
): Promise<ScriptedServer> {
  const jobContent = items.map((item, i) => ({ id: i + 1, job_id: 'job1', ...item }));
  const server = await startScriptedServer(async (req, res, body) => {
    const url = req.url ?? '';
    if (url === '/api/jobs/job1/content') return sendJson(res, 200, { jobContent });
    if (url === '/api/jobs/job1/files/download-url') {
      const { fileName } = JSON.parse(body.toString('utf8')) as { fileName: string };
      asked.push(fileName);
      return sendJson(res, 200, { signedUrl: `${server.baseUrl}/files/${encodeURIComponent(fileName)}` });
    }
    const file = url.startsWith('/files/')
      ? files[decodeURIComponent(url.slice('/files/'.length))]
      : undefined;
    if (file) return file(res);
    res.writeHead(404);
    res.end();
  });
  return server;
}

/** A file answered whole, as a WAV. */
export function wavFile(bytes: Uint8Array): JobFile {
  return (res) => {
    res.writeHead(200, { 'content-type': 'audio/wav' });
    res.end(bytes);
  };
}
