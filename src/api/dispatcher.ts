/**
 * The client's one dispatcher: undici's Agent with the client's timeouts, or, when the environment
 * names a proxy (see proxy.ts), a router that sends each request direct or through its proxy. Through
 * a proxy every request goes in a CONNECT tunnel (undici's ProxyAgent, `proxyTunnel`), plain http
 * too: the proxy is told the host and port, and sees no request line, header (the token) or body.
 * Either way, each connection reads an answer that comes before its request is sent (early-answer.ts).
 */
import type { Dispatcher as UndiciDispatcher } from 'undici';
import { CONNECTION_REUSE } from './connection-reuse.js';
import { type Connector, readingEarlyAnswers } from './early-answer.js';
import { skippingUnaskedContinue } from './unasked-continue.js';
import { type ProxySettings, proxyFor } from './proxy.js';
import { Agent, buildConnector, Dispatcher, loadProxyAgent, Pool } from './undici-agent.js';

export type AgentOptions = ConstructorParameters<typeof Agent>[0];

/** Origins whose route is remembered (a run talks to the service and a few file hosts). */
const REMEMBERED_ORIGINS = 64;

// No #private members: undici's compose() hands out a Proxy of the dispatcher, and methods called
// through it (close) have the Proxy as `this`, which has no private fields.
class ProxyRouter extends Dispatcher {
  private readonly direct: UndiciDispatcher;
  /** One agent per proxy, made on its first request. */
  private readonly tunnels = new Map<string, UndiciDispatcher>();
  private readonly routes = new Map<string, UndiciDispatcher>();

  constructor(
    private readonly options: AgentOptions,
    private readonly settings: ProxySettings,
  ) {
    super();
    this.direct = new Agent(options);
  }

  private route(origin: string): UndiciDispatcher {
    let route = this.routes.get(origin);
    if (route) return route;
    const proxy = proxyFor(new URL(origin), this.settings);
    route = proxy ? this.tunnelThrough(proxy.proxy) : this.direct;
    if (this.routes.size >= REMEMBERED_ORIGINS) this.routes.clear();
    this.routes.set(origin, route);
    return route;
  }

  private tunnelThrough(proxy: URL): UndiciDispatcher {
    let tunnel = this.tunnels.get(proxy.href);
    if (!tunnel) {
      const ProxyAgent = loadProxyAgent();
      tunnel = new ProxyAgent({
        ...this.options,
        uri: proxy.href,
        proxyTunnel: true,
        // Each origin's pool connects through the tunnel: its connections are read as direct ones are.
        factory: (origin, options) =>
          new Pool(origin, {
            ...options,
            connect: connectionReading((options as { connect: Connector }).connect),
          }),
      });
      this.tunnels.set(proxy.href, tunnel);
    }
    return tunnel;
  }

  override dispatch(
    options: UndiciDispatcher.DispatchOptions,
    handler: UndiciDispatcher.DispatchHandler,
  ): boolean {
    return this.route(String(options.origin)).dispatch(options, handler);
  }

  private all(): UndiciDispatcher[] {
    return [this.direct, ...this.tunnels.values()];
  }

  // undici's overloads: a promise, or a callback when one is given.
  override close(): Promise<void>;
  override close(callback: () => void): void;
  override close(callback?: () => void): Promise<void> | void {
    return settle(Promise.all(this.all().map((agent) => agent.close())), callback);
  }

  override destroy(): Promise<void>;
  override destroy(error: Error | null): Promise<void>;
  override destroy(callback: () => void): void;
  override destroy(error: Error | null, callback: () => void): void;
  override destroy(first?: Error | null | (() => void), second?: () => void): Promise<void> | void {
    const error = typeof first === 'function' ? null : (first ?? null);
    return settle(
      Promise.all(this.all().map((agent) => agent.destroy(error))),
      typeof first === 'function' ? first : second,
    );
  }
}

function settle(done: Promise<unknown>, callback: (() => void) | undefined): Promise<void> | void {
  const finished = done.then(() => undefined);
  if (!callback) return finished;
  void finished.then(callback, callback);
}

/** Every connection's reading: early answers (early-answer.ts), and no unasked 100 (unasked-continue.ts). */
function connectionReading(connect: Connector): Connector {
  return readingEarlyAnswers(skippingUnaskedContinue(connect));
}

/** undici's Agent, or the proxy router when `proxies` names any; either reuses connections alike. */
export function dispatcherFor(options: AgentOptions, proxies: ProxySettings | undefined): UndiciDispatcher {
  const withReuse = { ...options, ...CONNECTION_REUSE };
  if (proxies) return new ProxyRouter(withReuse, proxies);
  // undici builds this connector itself when given none; given one, it takes the timeout from it.
  const connect = connectionReading(buildConnector({ timeout: options?.connectTimeout }));
  return new Agent({ ...withReuse, connect });
}
