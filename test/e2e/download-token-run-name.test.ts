/**
 * A listed file name holding a run of the token (`x-<16 characters of the token>.wav`): the scrub
 * masks it for showing, and `download` still asks the service for the name it gave, saves the file
 * under the masked name, and never shows the run. Before, it asked for the masked name, and the
 * service had no such file.
 */
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { isolatedEnv, runCli, tempDirPerTest } from '../helpers/cli.js';
import { type ScriptedServer, sendJson, startScriptedServer } from '../helpers/scripted-server.js';
import { speechSlice } from '../helpers/speech-files.js';

const TOKEN = 'vr_tokenrun_0123456789abcdef';
const RUN = TOKEN.slice(4, 20);
const GIVEN = `x-${RUN}.wav`;
const SHOWN = 'x-vr_…cdef.wav';
const dir = tempDirPerTest('vredact-token-run-name-');

/** A job with the one file; only its own name is served. Records each name asked for. */
async function jobWithTokenRunName(asked: string[]): Promise<ScriptedServer> {
  const wav = await speechSlice(1600);
  const server = await startScriptedServer((req, res, body) => {
    const path = req.url ?? '';
    if (path.endsWith('/content'))
      return sendJson(res, 200, {
        jobContent: [{ id: '1', job_id: 'job1', file_name: GIVEN, audio_duration: 0.1 }],
      });
    if (path.endsWith('/files/download-url')) {
      const { fileName } = JSON.parse(body.toString('utf8')) as { fileName: string };
      asked.push(fileName);
      if (fileName !== GIVEN) return sendJson(res, 404, { error: 'not_found', message: 'no such file' });
      return sendJson(res, 200, { signedUrl: `${server.baseUrl}/files/one.wav` });
    }
    res.writeHead(200, { 'content-type': 'audio/wav', 'content-length': wav.length });
    res.end(wav);
  });
  return server;
}

it('download asks for the name as given, saves it masked, and never shows the run', async () => {
  const asked: string[] = [];
  const server = await jobWithTokenRunName(asked);
  try {
    const out = join(dir.path, 'out');
    const env = isolatedEnv(join(dir.path, 'config'), {
      VREDACT_BASE_URL: server.baseUrl,
      VREDACT_TOKEN: TOKEN,
    });
    const result = await runCli(['download', 'job1', '-o', out], { env });
    expect(result.exitCode, String(result.stderr)).toBe(0);
    expect(asked).toEqual([GIVEN]);
    expect(await readdir(out)).toEqual([SHOWN]);
    expect(String(result.stdout)).toBe(join(out, SHOWN));
    for (const text of [String(result.stdout), String(result.stderr)]) {
      expect(text).not.toContain(RUN);
      expect(text).not.toContain(TOKEN);
    }
  } finally {
    await server.close();
  }
});
