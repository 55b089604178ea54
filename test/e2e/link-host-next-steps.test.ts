/**
 * A download link (a signed URL) may point at another host than the service's. When that host
 * answers badly, each file's line names the link's host, not the service, and says what fits: a
 * fresh link, then the service's operators (the base URL has nothing to do with it). The link's
 * query is a credential: no part of it is printed, even with --verbose, even where the host echoes it.
 */
import type { ServerResponse } from 'node:http';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { describe, expect, test } from 'vitest';
import { isolatedEnv, runCli, tempDirPerTest } from '../helpers/cli.js';
import { errorLines } from '../helpers/e2e.js';
import { type ScriptedServer, sendJson, startScriptedServer } from '../helpers/scripted-server.js';

const TOKEN = 'vr_linkhost_0123456789abcdef';
const CONTENT = /^\/api\/jobs\/[^/]+\/content$/;
const dir = tempDirPerTest('vredact-link-host-');

/** The signed query's parts: none may reach stderr. */
const CREDENTIAL = 'AKIALINKCREDENTIAL7Q';
const SIGNATURE = 'f00dfacecafe5151deadbeef0042';
const QUERY = `X-Amz-Credential=${CREDENTIAL}&X-Amz-Signature=${SIGNATURE}`;

const NEXT_STEP =
  "run the same command again for a fresh link; if it fails again, report it to the service's operators";

/** How the link's host answers each file. */
const ANSWERS: Record<string, (res: ServerResponse, host: string) => void> = {
  'gone.wav': (res) => sendJson(res, 404, { error: 404, message: `no object for signature ${SIGNATURE}` }),
  'removed.wav': (res) => sendJson(res, 410, { error: 410, message: 'removed' }),
  'broken.wav': (res) => sendJson(res, 500, { error: 500, message: 'boom' }),
  'refused.wav': (res) => sendJson(res, 403, { error: 403, message: 'expired' }),
  'badgzip.wav': (res) => {
    res.writeHead(200, { 'content-type': 'audio/wav', 'content-encoding': 'gzip' });
    res.end(Buffer.from('RIFF this is no gzip at all'));
  },
  'zz.wav': (res) => {
    res.writeHead(200, { 'content-type': 'audio/wav', 'content-encoding': 'zz' });
    res.end(gzipSync(Buffer.from('RIFF')));
  },
  'loop.wav': (res, host) => {
    res.writeHead(302, { location: `http://${host}/files/loop.wav?${QUERY}` });
    res.end();
  },
  'ftp.wav': (res) => {
    res.writeHead(302, { location: `ftp://files.example/ftp.wav?${QUERY}` });
    res.end();
  },
};

/** The service, whose links point at `fileHost` with a signed query. */
function startService(fileHost: ScriptedServer): Promise<ScriptedServer> {
  return startScriptedServer((req, res, body) => {
    const path = req.url ?? '';
    if (CONTENT.test(path)) {
      return sendJson(res, 200, { jobContent: Object.keys(ANSWERS).map((file_name) => ({ file_name })) });
    }
    const { fileName } = JSON.parse(body.toString('utf8')) as { fileName: string };
    sendJson(res, 200, { signedUrl: `${fileHost.baseUrl}/files/${fileName}?${QUERY}` });
  });
}

async function startFileHost(): Promise<ScriptedServer> {
  return startScriptedServer((req, res) => {
    const name = new URL(req.url ?? '/', 'http://x').pathname.replace('/files/', '');
    const answer = ANSWERS[name];
    if (answer) return answer(res, req.headers.host ?? '');
    res.writeHead(404);
    res.end();
  });
}

async function download(extra: string[]) {
  const fileHost = await startFileHost();
  const service = await startService(fileHost);
  try {
    const env = isolatedEnv(join(dir.path, '.config'), {
      VREDACT_BASE_URL: service.baseUrl,
      VREDACT_TOKEN: TOKEN,
    });
    const out = join(dir.path, 'out');
    const result = await runCli(['download', 'job1', '-o', out, '--max-retries', '0', ...extra], { env });
    return { result, host: `127.0.0.1:${fileHost.port}`, fileHost };
  } finally {
    await service.close();
    await fileHost.close();
  }
}

describe("download: bad answers of the download link's host", () => {
  test('each file says the link host answered, and to ask for a fresh link, then the operators, exit 1', async () => {
    const { result, host, fileHost } = await download([]);
    expect(result.exitCode).toBe(1);
    // The link was fetched as given, its query and all.
    expect(fileHost.received.some((r) => r.url === `/files/gone.wav?${QUERY}`)).toBe(true);
    const linkHost = `the download link's host ${host}`;
    expect(errorLines(result.stderr)).toEqual([
      `error: badgzip.wav: downloading badgzip.wav: the answer of ${linkHost} does not decode as the gzip it was sent as (Z_DATA_ERROR); ${NEXT_STEP}`,
      `error: broken.wav: downloading broken.wav: ${linkHost} answered 500 Internal Server Error: boom; ${NEXT_STEP}`,
      `error: ftp.wav: downloading ftp.wav: ${linkHost} redirected to a URL that is not http(s): ftp:; ${NEXT_STEP}`,
      `error: gone.wav: downloading gone.wav: ${linkHost} answered 404 Not Found: no object for signature …0042; ${NEXT_STEP}`,
      `error: loop.wav: downloading loop.wav: ${linkHost} redirected too many times (more than 10); ${NEXT_STEP}`,
      `error: refused.wav: downloading refused.wav: ${linkHost} refused the link (403); it may have expired; run the same command again for a fresh link`,
      `error: removed.wav: downloading removed.wav: ${linkHost} answered 410 Gone: removed; ${NEXT_STEP}`,
      `error: zz.wav: downloading zz.wav: the answer of ${linkHost} came with Content-Encoding "zz", which vredact cannot decode; ${NEXT_STEP}`,
    ]);
    expect(String(result.stderr)).not.toMatch(/base URL|base-url|the service answered/);
  });

  test('no part of the signed query reaches stderr, even with --verbose', async () => {
    const { result } = await download(['--verbose']);
    expect(result.exitCode).toBe(1);
    const stderr = String(result.stderr);
    // --verbose does log each GET of a link: by its host and path alone.
    expect(stderr).toMatch(/GET http:\/\/127\.0\.0\.1:\d+\/files\/gone\.wav/);
    for (const part of [CREDENTIAL, SIGNATURE, SIGNATURE.slice(0, 10), 'X-Amz-']) {
      expect(stderr).not.toContain(part);
    }
  });
});
