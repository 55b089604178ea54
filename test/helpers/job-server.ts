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
