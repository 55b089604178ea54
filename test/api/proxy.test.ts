import { describe, expect, it } from 'vitest';
import { ConnectionError, ProxyRefusedError } from '../../src/api/errors.js';
import { NoProxy, proxyFor, proxySecrets, proxySettingsFrom, tunnelRefusal } from '../../src/api/proxy.js';
import { uploadMayHaveBeenAccepted, uploadSafeToResend } from '../../src/api/upload-fate.js';
import { UsageError } from '../../src/errors.js';

const url = (text: string) => new URL(text);

describe('the proxy variables', () => {
  it('are none when no proxy is named', () => {
    expect(proxySettingsFrom({})).toBeUndefined();
    expect(proxySettingsFrom({ NO_PROXY: 'example.com', HTTPS_PROXY: '  ' })).toBeUndefined();
  });

  it('take the lower-case name first, and a value without a scheme as an http proxy', () => {
    const settings = proxySettingsFrom({
      https_proxy: 'proxy.lower:3128',
      HTTPS_PROXY: 'http://proxy.upper:3128',
      HTTP_PROXY: 'https://tls.proxy:8443',
    });
    expect(settings?.https?.href).toBe('http://proxy.lower:3128/');
    expect(settings?.httpsVariable).toBe('https_proxy');
    expect(settings?.http?.href).toBe('https://tls.proxy:8443/');
    expect(settings?.httpVariable).toBe('HTTP_PROXY');
  });

  it('refuse what is not an http or https proxy, naming the variable and not its credentials', () => {
    expect(() => proxySettingsFrom({ HTTPS_PROXY: 'socks5://127.0.0.1:1080' })).toThrow(UsageError);
    expect(() => proxySettingsFrom({ HTTPS_PROXY: 'socks5://127.0.0.1:1080' })).toThrow(
      'HTTPS_PROXY names a socks5 proxy',
    );
    let message = '';
    try {
      proxySettingsFrom({ http_proxy: 'http://user:hunter22@[::1' });
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toContain('http_proxy is not a proxy address');
    expect(message).not.toContain('hunter22');
  });

  it('give their credentials, decoded and not, as secrets to scrub', () => {
    const settings = proxySettingsFrom({ HTTPS_PROXY: 'http://al%40ce:p%40ss%2Fword@proxy:3128' });
    expect(proxySecrets(settings)).toEqual(expect.arrayContaining(['p%40ss%2Fword', 'p@ss/word', 'al@ce']));
  });
});

describe('NO_PROXY', () => {
  const direct = (value: string, target: string) => NoProxy.parse(value).matches(url(target));

  it('takes a name for itself and its subdomains, with or without a leading dot or *.', () => {
    for (const value of ['example.com', '.example.com', '*.example.com', ' other.org,example.com ']) {
      expect(direct(value, 'https://example.com/x')).toBe(true);
      expect(direct(value, 'https://api.example.com')).toBe(true);
    }
    expect(direct('example.com', 'https://badexample.com')).toBe(false);
    expect(direct('EXAMPLE.com', 'https://Api.Example.COM')).toBe(true);
  });

  it('takes a port, addresses and ranges of both families, and * for every host', () => {
    expect(direct('example.com:8443', 'https://example.com:8443')).toBe(true);
    expect(direct('example.com:8443', 'https://example.com')).toBe(false);
    expect(direct('example.com:443', 'https://example.com')).toBe(true);
    expect(direct('10.1.2.3', 'http://10.1.2.3:8080')).toBe(true);
    expect(direct('10.0.0.0/8', 'http://10.200.0.1')).toBe(true);
    expect(direct('10.0.0.0/8', 'http://11.0.0.1')).toBe(false);
    expect(direct('fd00::/8', 'http://[fd12::1]:80')).toBe(true);
    expect(direct('[2001:db8::1]:443', 'https://[2001:db8::1]')).toBe(true);
    expect(direct('2001:db8::1', 'https://[2001:db8::2]')).toBe(false);
    expect(direct('*', 'https://anything.example')).toBe(true);
    // An address is not a domain: 3.4 does not cover 1.2.3.4.
    expect(direct('3.4', 'http://1.2.3.4')).toBe(false);
  });
});

describe('the route of a request', () => {
  const settings = proxySettingsFrom({
    HTTPS_PROXY: 'http://secure.proxy:3128',
    HTTP_PROXY: 'http://plain.proxy:3128',
    NO_PROXY: 'direct.example',
  });

  it('is the proxy of its scheme, with no fallback from one to the other', () => {
    expect(proxyFor(url('https://api.example/x'), settings)?.proxy.hostname).toBe('secure.proxy');
    expect(proxyFor(url('http://api.example/x'), settings)?.proxy.hostname).toBe('plain.proxy');
    const httpOnly = proxySettingsFrom({ HTTP_PROXY: 'http://plain.proxy:3128' });
    expect(proxyFor(url('https://api.example/x'), httpOnly)).toBeUndefined();
  });

  it('is direct for loopback, whatever the variables say, and for NO_PROXY', () => {
    for (const target of [
      'http://127.0.0.1:8787',
      'http://127.9.9.9',
      'http://localhost:1',
      'http://[::1]:2',
    ]) {
      expect(proxyFor(url(target), settings)).toBeUndefined();
    }
    expect(proxyFor(url('https://direct.example'), settings)).toBeUndefined();
    expect(proxyFor(url('https://x.direct.example'), settings)).toBeUndefined();
  });
});

describe('a tunnel the proxy refused', () => {
  const route = { proxy: url('http://u:secret@proxy.corp:3128'), variable: 'HTTPS_PROXY' };
  const target = url('https://api.example');
  const undiciSays = (status: number) => new Error(`Proxy response (${status}) !== 200 when HTTP Tunneling`);

  it('for credentials or a forbidden host: fails at once, not sent again in the run, not looked for', () => {
    const refused = tunnelRefusal(undiciSays(407), 'listing jobs', target, route);
    expect(refused).toBeInstanceOf(ProxyRefusedError);
    expect(refused?.message).toBe(
      'listing jobs: the proxy proxy.corp:3128 refused a tunnel to api.example:443 (407 Proxy Authentication Required)',
    );
    expect((refused as ProxyRefusedError).hint).toContain('refused the credentials in HTTPS_PROXY');
    expect(refused?.message).not.toContain('secret');
    const forbidden = tunnelRefusal(undiciSays(403), 'x', target, route) as ProxyRefusedError;
    expect(forbidden.hint).toContain('NO_PROXY=api.example');
    expect([uploadSafeToResend(forbidden), uploadMayHaveBeenAccepted(forbidden)]).toEqual([false, false]);
  });

  it('because it cannot reach the service: a connection that never left, retried', () => {
    const gateway = tunnelRefusal(undiciSays(502), 'x', target, route);
    expect(gateway).toBeInstanceOf(ConnectionError);
    expect((gateway as ConnectionError).refused).toBe(true);
    expect([uploadSafeToResend(gateway), uploadMayHaveBeenAccepted(gateway)]).toEqual([true, false]);
  });

  it('is not any other error', () => {
    expect(tunnelRefusal(new Error('socket hang up'), 'x', target, route)).toBeUndefined();
  });
});
