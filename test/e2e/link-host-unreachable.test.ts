/**
 * A download link whose host cannot be reached at all (nothing listens on its port, its TLS
 * certificate is not trusted): the service answered fine, so each file's line names the link's host,
 * never the service URL, and says what fits: a fresh link, or how to trust a private certificate
 * authority. The link's query is a credential: none of it is printed.
 */
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { startTlsFront, type TlsFront } from '../helpers/connect-proxy.js';
import { isolatedEnv, runCli, tempDirPerTest } from '../helpers/cli.js';
import { errorLines } from '../helpers/e2e.js';
import { type ScriptedServer, sendJson, startScriptedServer } from '../helpers/scripted-server.js';

const TOKEN = 'vr_linkreach_0123456789abcdef';
const CONTENT = /^\/api\/jobs\/[^/]+\/content$/;
const SIGNATURE = 'c0ffee5151deadbeef0099';
const QUERY = `X-Amz-Signature=${SIGNATURE}`;
const dir = tempDirPerTest('vredact-link-unreachable-');

const FRESH_LINK =
  "run the same command again for a fresh link; if it fails again, report it to the service's operators";

/** A loopback port nothing listens on: a server's, once it closed. */
async function closedPort(): Promise<number> {
  const server = await startScriptedServer((_req, res) => void res.end());
  await server.close();
  return server.port;
}

/** The service; its links for `refused.wav` and `untrusted.wav` point at those hosts. */
function startService(closed: number, tls: TlsFront): Promise<ScriptedServer> {
  const links: Record<string, string> = {
    'refused.wav': `http://127.0.0.1:${closed}/files/refused.wav?${QUERY}`,
    'untrusted.wav': `https://127.0.0.1:${tls.port}/files/untrusted.wav?${QUERY}`,
  };
  return startScriptedServer((req, res, body) => {
    if (CONTENT.test(req.url ?? '')) {
      return sendJson(res, 200, { jobContent: Object.keys(links).map((file_name) => ({ file_name })) });
    }
    const { fileName } = JSON.parse(body.toString('utf8')) as { fileName: string };
    sendJson(res, 200, { signedUrl: links[fileName] });
  });
}

async function download(names: string[]) {
  const closed = await closedPort();
  // TLS with the tests' own authority, which this run does not trust; the bytes would come from nowhere.
  const tls = await startTlsFront(closed);
  const service = await startService(closed, tls);
  try {
    const env = isolatedEnv(join(dir.path, '.config'), {
      VREDACT_BASE_URL: service.baseUrl,
      VREDACT_TOKEN: TOKEN,
    });
    const out = join(dir.path, 'out');
    const result = await runCli(['download', 'job1', ...names, '-o', out, '--max-retries', '0'], { env });
    return { result, refusedHost: `127.0.0.1:${closed}`, tlsHost: `127.0.0.1:${tls.port}` };
  } finally {
    await service.close();
    await tls.close();
  }
}

describe("download: a download link's host that cannot be reached", () => {
  test('each file names the link host and says what to do, never the service URL; exit 1', async () => {
    const { result, refusedHost, tlsHost } = await download([]);
    expect(result.exitCode).toBe(1);
    expect(errorLines(result.stderr)).toEqual([
      `error: refused.wav: downloading refused.wav: cannot connect to the download link's host ${refusedHost} (connection refused); ${FRESH_LINK}`,
      `error: untrusted.wav: downloading untrusted.wav: the TLS certificate of the download link's host ${tlsHost} is not trusted (issued by an authority this machine does not trust); if that host's certificate authority is a private one, trust it with NODE_EXTRA_CA_CERTS=<its PEM file>; otherwise report it to the service's operators`,
    ]);
    const stderr = String(result.stderr);
    expect(stderr).not.toMatch(/base URL|base-url|service URL/);
    expect(stderr).not.toContain(SIGNATURE);
  });

  test('one file named: the same line, exit 1', async () => {
    const { result, refusedHost } = await download(['refused.wav']);
    expect(result.exitCode).toBe(1);
    expect(errorLines(result.stderr)).toEqual([
      `error: refused.wav: downloading refused.wav: cannot connect to the download link's host ${refusedHost} (connection refused); ${FRESH_LINK}`,
    ]);
    expect(String(result.stderr)).not.toMatch(/base URL|base-url|service URL/);
  });
});
