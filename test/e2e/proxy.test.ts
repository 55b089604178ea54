/**
 * Proxies, end to end: the built binary talks https to `service.test` (the sandbox behind a TLS
 * front) through a CONNECT proxy on loopback, as it would to the real service from behind a
 * company's proxy. Build first: `npm run build`.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isolatedEnv, runCli } from '../helpers/cli.js';
import { startConnectProxy } from '../helpers/connect-proxy.js';
import { isWav, listFiles } from '../helpers/e2e.js';
import { makeWav } from '../helpers/mp3.js';
import { tlsServicePerTest } from '../helpers/tls-service.js';

const service = tlsServicePerTest('vredact-proxy-');

function run(args: string[], extra: Record<string, string>) {
  return runCli(args, { env: service.env(extra), cwd: service.dir });
}

describe('through a proxy', () => {
  it('redacts over https through HTTPS_PROXY, in a tunnel: the proxy sees the host, never the token', async () => {
    await mkdir(join(service.dir, 'in'));
    await writeFile(join(service.dir, 'in', 'a.wav'), makeWav(1, 16000));
    await writeFile(join(service.dir, 'in', 'b.wav'), makeWav(2, 16000));
    const result = await run(['redact', 'in', '-o', 'out', '--verbose'], { HTTPS_PROXY: service.proxy.url });
    expect(result.exitCode, String(result.stderr)).toBe(0);
    expect(await isWav(join(service.dir, 'out', 'a.wav'))).toBe(true);
    expect(await isWav(join(service.dir, 'out', 'b.wav'))).toBe(true);
    expect((await service.sandbox.stats()).uploads).toBe(2);
    expect(service.proxy.connects.length).toBeGreaterThan(0);
    expect(new Set(service.proxy.connects.map((c) => c.target))).toEqual(
      new Set([`service.test:${service.front.port}`]),
    );
    expect(service.proxy.plainRequests).toEqual([]);
    const seen = service.proxy.relayed();
    expect(seen.length).toBeGreaterThan(0);
    expect(seen.includes(Buffer.from(service.sandbox.token))).toBe(false);
    expect(seen.includes(Buffer.from('RIFF'))).toBe(false);
    expect(String(result.stderr)).toContain(`(through the proxy 127.0.0.1:${service.proxy.port})`);
  });

  it('sends the proxy its credentials from the URL and never shows them, even when refused', async () => {
    service.proxy.requireCredentials('alice', 'pr0xy-s3cret');
    const good = await run(['jobs', 'list', '--json'], {
      https_proxy: `http://alice:pr0xy-s3cret@127.0.0.1:${service.proxy.port}`,
    });
    expect(good.exitCode, String(good.stderr)).toBe(0);
    expect(JSON.parse(String(good.stdout))).toEqual([]);

    const none = await run(['jobs', 'list'], { HTTPS_PROXY: service.proxy.url });
    expect(none.exitCode).toBe(1);
    expect(String(none.stderr)).toContain(
      `the proxy 127.0.0.1:${service.proxy.port} refused a tunnel to service.test:${service.front.port} (407 Proxy Authentication Required)`,
    );
    expect(String(none.stderr)).toContain("put the proxy's credentials in HTTPS_PROXY");

    const wrong = await run(['jobs', 'list', '--verbose'], {
      HTTPS_PROXY: `http://alice:wr0ng-s3cret@127.0.0.1:${service.proxy.port}`,
    });
    expect(wrong.exitCode).toBe(1);
    expect(String(wrong.stderr)).toContain('the proxy refused the credentials in HTTPS_PROXY');
    for (const output of [good, none, wrong].flatMap((r) => [String(r.stdout), String(r.stderr)])) {
      expect(output).not.toContain('s3cret');
    }
  });

  it('names the proxy when it cannot be reached, and a proxy that cannot reach the service', async () => {
    const closed = await startConnectProxy([]);
    await closed.close();
    const down = await run(['jobs', 'list', '--max-retries', '0'], {
      HTTPS_PROXY: `127.0.0.1:${closed.port}`,
    });
    expect(down.exitCode).toBe(1);
    expect(String(down.stderr)).toContain(
      `cannot connect to the proxy 127.0.0.1:${closed.port} (connection refused)`,
    );
    expect(String(down.stderr)).toContain('check HTTPS_PROXY');

    service.proxy.refuseWith(502);
    const gateway = await run(['jobs', 'list', '--max-retries', '0'], { HTTPS_PROXY: service.proxy.url });
    expect(gateway.exitCode).toBe(1);
    expect(String(gateway.stderr)).toContain(
      `could not open a tunnel to service.test:${service.front.port} (502 Bad Gateway)`,
    );
  });

  it('goes direct to the hosts NO_PROXY names, to loopback always, and ignores HTTP_PROXY for https', async () => {
    const named = await run(['jobs', 'list', '--max-retries', '0'], {
      HTTPS_PROXY: service.proxy.url,
      NO_PROXY: 'example.org, .test',
    });
    // Direct, service.test has no address: the proxy was not asked.
    expect(String(named.stderr)).toContain('the host service.test was not found');
    const httpOnly = await run(['jobs', 'list', '--max-retries', '0'], { HTTP_PROXY: service.proxy.url });
    expect(String(httpOnly.stderr)).toContain('the host service.test was not found');
    expect(service.proxy.connects).toEqual([]);

    const loopback = await runCli(['jobs', 'list', '--json'], {
      env: isolatedEnv(join(service.dir, 'cfg'), {
        VREDACT_BASE_URL: service.sandbox.baseUrl,
        VREDACT_TOKEN: service.sandbox.token,
        HTTP_PROXY: service.proxy.url,
        HTTPS_PROXY: service.proxy.url,
      }),
      cwd: service.dir,
    });
    expect(loopback.exitCode, String(loopback.stderr)).toBe(0);
    expect(service.proxy.connects).toEqual([]);
    expect(service.proxy.plainRequests).toEqual([]);
  });

  it('refuses a proxy variable it cannot use before any request, without showing its credentials', async () => {
    const scheme = await run(['jobs', 'list'], { HTTPS_PROXY: 'ftp://proxy.example:21' });
    expect(scheme.exitCode).toBe(2);
    expect(String(scheme.stderr)).toContain(
      'HTTPS_PROXY names a ftp proxy; vredact takes http and https proxies',
    );
    const garbled = await run(['jobs', 'list'], { https_proxy: 'http://bob:t0p-s3cret@[proxy' });
    expect(garbled.exitCode).toBe(2);
    expect(String(garbled.stderr)).toContain('https_proxy is not a proxy address');
    expect(String(garbled.stderr)).not.toContain('s3cret');
    expect(service.proxy.connects).toEqual([]);
    expect(await listFiles(service.dir)).toEqual([]);
  });
});
