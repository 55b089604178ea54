/**
 * Which proxy a request goes through, read from the environment as curl reads it: `https_proxy` (or
 * `HTTPS_PROXY`) for https requests, `http_proxy` (or `HTTP_PROXY`) for plain http ones, with no
 * fallback from one to the other (as curl and Go; undici's EnvHttpProxyAgent would send https
 * requests through HTTP_PROXY), and `no_proxy` (or `NO_PROXY`) for the hosts reached directly. A
 * loopback host (the sandbox) is never reached through a proxy.
 *
 * NO_PROXY is matched here rather than by undici: its matcher is private to EnvHttpProxyAgent (whose
 * fallback is the one above) and knows no address ranges, which curl and Go take (`10.0.0.0/8`).
 */
import { STATUS_CODES } from 'node:http';
import { BlockList, isIP } from 'node:net';
import { ExitCode, UsageError } from '../errors.js';
import { ConnectionError, ProxyRefusedError } from './errors.js';
import { isLoopbackHost } from '../net/loopback.js';
import { displayText, truncate } from '../output/sanitize.js';

export interface ProxySettings {
  /** The proxy of plain http requests, if any. */
  http: URL | undefined;
  /** The proxy of https requests, if any. */
  https: URL | undefined;
  /** The environment variable each came from, for messages. */
  httpVariable: string;
  httpsVariable: string;
  noProxy: NoProxy;
}

const SCHEMES = new Set(['http:', 'https:']);

/** The first of `names` set to a non-empty value in `env`: lower case first, as curl reads them. */
function firstSet(env: NodeJS.ProcessEnv, names: readonly string[]): [string, string] | undefined {
  for (const name of names) {
    const value = env[name]?.trim();
    if (value) return [name, value];
  }
  return undefined;
}

/**
 * A proxy's address, its credentials kept (they are the proxy's, sent to it alone) but never shown:
 * a value without a scheme is an http proxy, as curl and Go take it.
 */
function proxyUrl(name: string, value: string): URL {
  const text = /^[a-z][a-z0-9+.-]*:\/\//i.test(value) ? value : `http://${value}`;
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new UsageError(
      `${name} is not a proxy address (${truncate(displayText(value.replace(/\/\/[^@/]*@/, '//…@')), 80)})`,
      `set it to http://host:port (credentials as http://user:password@host:port), or unset it`,
    );
  }
  if (!SCHEMES.has(url.protocol)) {
    throw new UsageError(
      `${name} names a ${truncate(displayText(url.protocol.slice(0, -1)), 20)} proxy; vredact takes http and https proxies`,
      `set it to http://host:port, or unset it`,
    );
  }
  return url;
}

/** The proxies the environment names; undefined when it names none (requests go direct). */
export function proxySettingsFrom(env: NodeJS.ProcessEnv): ProxySettings | undefined {
  const http = firstSet(env, ['http_proxy', 'HTTP_PROXY']);
  const https = firstSet(env, ['https_proxy', 'HTTPS_PROXY']);
  if (!http && !https) return undefined;
  return {
    http: http && proxyUrl(...http),
    https: https && proxyUrl(...https),
    httpVariable: http?.[0] ?? 'HTTP_PROXY',
    httpsVariable: https?.[0] ?? 'HTTPS_PROXY',
    noProxy: NoProxy.parse(firstSet(env, ['no_proxy', 'NO_PROXY'])?.[1] ?? ''),
  };
}

/** A URL's port, its scheme's default when it names none. */
export function portOf(url: URL): number {
  return Number(url.port) || (url.protocol === 'https:' ? 443 : 80);
}

/** A host as URL gives it, without the brackets of an IPv6 address. */
function bare(host: string): string {
  return host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
}

/** NO_PROXY: `*`, or names (a domain covers its subdomains), addresses and ranges, each with an optional port. */
export class NoProxy {
  private constructor(
    private readonly all: boolean,
    private readonly names: ReadonlyArray<{ name: string; port: number }>,
    private readonly ranges: ReadonlyArray<{ list: BlockList; port: number }>,
  ) {}

  static parse(value: string): NoProxy {
    const names: Array<{ name: string; port: number }> = [];
    const ranges: Array<{ list: BlockList; port: number }> = [];
    let all = false;
    for (const entry of value.split(/[\s,]+/).filter(Boolean)) {
      if (entry === '*') {
        all = true;
        continue;
      }
      // `host:port`, `[v6]:port`; a bare IPv6 address has colons of its own and no port.
      const withPort = /^(\[[^\]]+\]|[^:]+):(\d+)$/.exec(entry);
      const host = bare(withPort?.[1] ?? entry).toLowerCase();
      const port = withPort ? Number(withPort[2]) : 0;
      const range = /^(.+)\/(\d{1,3})$/.exec(host);
      const family = range ? isIP(range[1] as string) : 0;
      if (range && family !== 0) {
        const list = new BlockList();
        try {
          list.addSubnet(range[1] as string, Number(range[2]), family === 6 ? 'ipv6' : 'ipv4');
          ranges.push({ list, port });
        } catch {
          // A prefix longer than the address: no host matches it.
        }
        continue;
      }
      names.push({ name: host.replace(/^\*?\./, ''), port });
    }
    return new NoProxy(all, names, ranges);
  }

  /** Whether a request to `url` goes direct. */
  matches(url: URL): boolean {
    if (this.all) return true;
    const host = bare(url.hostname).toLowerCase();
    const port = portOf(url);
    const family = isIP(host);
    for (const { list, port: only } of this.ranges) {
      if ((only === 0 || only === port) && family !== 0 && list.check(host, family === 6 ? 'ipv6' : 'ipv4'))
        return true;
    }
    return this.names.some(
      ({ name, port: only }) =>
        (only === 0 || only === port) && (host === name || (family === 0 && host.endsWith(`.${name}`))),
    );
  }
}

/** A request's way through a proxy: the proxy, and the variable that named it (for messages). */
export interface ProxyRoute {
  proxy: URL;
  variable: string;
}

/** The proxy a request to `url` goes through, or undefined: direct. */
export function proxyFor(url: URL, settings: ProxySettings | undefined): ProxyRoute | undefined {
  if (!settings || isLoopbackHost(bare(url.hostname))) return undefined;
  const https = url.protocol === 'https:';
  const proxy = https ? settings.https : settings.http;
  if (!proxy || settings.noProxy.matches(url)) return undefined;
  return { proxy, variable: https ? settings.httpsVariable : settings.httpVariable };
}

/** `host:port` of a proxy (`https://host:port` for a TLS one), never its credentials: what messages name. */
export function proxyShown(proxy: URL): string {
  return `${proxy.protocol === 'https:' ? 'https://' : ''}${proxy.hostname}:${portOf(proxy)}`;
}

/** The passwords and user names of the proxies: secrets to scrub from anything shown. */
export function proxySecrets(settings: ProxySettings | undefined): string[] {
  const secrets: string[] = [];
  for (const proxy of [settings?.http, settings?.https]) {
    if (!proxy) continue;
    for (const part of [proxy.password, proxy.username]) {
      if (!part) continue;
      secrets.push(part);
      try {
        secrets.push(decodeURIComponent(part));
      } catch {
        // Not percent-encoded text: the raw form is scrubbed.
      }
    }
  }
  return secrets;
}

/** undici's one sign of a tunnel the proxy refused: an abort error whose message holds the status. */
const TUNNEL_REFUSED = /^Proxy response \((\d{3})\) !== 200/;

function hostPortOf(url: URL): string {
  return `${url.hostname}:${portOf(url)}`;
}

/**
 * The error of a request that a proxy did not let through, or undefined for any other failure. A
 * refused tunnel never reached the service: a 5xx (the proxy could not reach it, or is overloaded) is
 * a connection that never left and is retried; any other status fails at once, saying what to do.
 */
export function tunnelRefusal(error: Error, what: string, target: URL, route: ProxyRoute): Error | undefined {
  const status = Number(TUNNEL_REFUSED.exec(error.message)?.[1] ?? 0);
  if (status === 0) return undefined;
  const proxy = proxyShown(route.proxy);
  const statusText = `${status}${STATUS_CODES[status] ? ` ${STATUS_CODES[status]}` : ''}`;
  const tunnelTo = hostPortOf(target);
  if (status >= 500) {
    return new ConnectionError(
      `${what}: the proxy ${proxy} could not open a tunnel to ${tunnelTo} (${statusText})`,
      true,
      `check that the proxy can reach ${target.hostname}, or set NO_PROXY=${target.hostname} if it can be reached directly`,
    );
  }
  const hint =
    status === 407
      ? route.proxy.username
        ? `the proxy refused the credentials in ${route.variable}: check them (http://user:password@host:port)`
        : `put the proxy's credentials in ${route.variable} (http://user:password@host:port)`
      : `ask for ${tunnelTo} to be let through the proxy, or set NO_PROXY=${target.hostname} if it can be reached directly`;
  return new ProxyRefusedError(
    `${what}: the proxy ${proxy} refused a tunnel to ${tunnelTo} (${statusText})`,
    undefined,
    undefined,
    ExitCode.partial,
    hint,
  );
}

/** What to check when the proxy itself cannot be reached. */
export function proxyHint(route: ProxyRoute): string {
  return `check ${route.variable} (the proxy is ${proxyShown(route.proxy)}), or set NO_PROXY for hosts reached directly`;
}
