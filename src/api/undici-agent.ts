/**
 * undici's Agent and its promise `request`, loaded from undici's own files rather than its index.
 * The index also builds fetch, WebSocket, EventSource, the cache stores and the mock agents, and its
 * cookie module reads `globalThis.Headers`, which makes Node.js load its own bundled copy of undici
 * too: about 90 ms of CPU at every start, for a client that needs one Agent and one method. The
 * wiring below is what undici's index.js does; test/api/undici-agent.test.ts fails if a new undici
 * moves these files.
 */
import { createRequire } from 'node:module';
import { setFlagsFromString } from 'node:v8';
import type {
  Agent as UndiciAgent,
  buildConnector as undiciBuildConnector,
  Pool as UndiciPool,
  Dispatcher as UndiciDispatcher,
  ProxyAgent as UndiciProxyAgent,
} from 'undici';

// undici parses HTTP with llhttp compiled to WebAssembly. Node.js 20's V8 recompiles llhttp's hot
// functions with its optimizing compiler after the first answers: about 110 ms of CPU on
// background threads, which a short run also waits for at exit, to speed up a parser that reads a
// few headers per answer (bodies pass through it uncopied). Its baseline compiler's code is kept
// instead. The flag is read when llhttp is compiled, at the first connection, after this line.
// Node.js 22 and newer tier up at a fraction of that cost, and there the flag costs more than it
// saves, so they are left alone.
if (process.versions.node.split('.')[0] === '20') setFlagsFromString('--liftoff-only');

const require = createRequire(import.meta.url);
/** The base class of undici's dispatchers (the client's proxy router extends it). */
export const Dispatcher = require('undici/lib/dispatcher/dispatcher.js') as typeof UndiciDispatcher;
// The index's `Object.assign(Dispatcher.prototype, api)`: it gives every dispatcher `request`.
Object.assign(Dispatcher.prototype, require('undici/lib/api/index.js') as object);

export const Agent = require('undici/lib/dispatcher/agent.js') as typeof UndiciAgent;
export type Agent = UndiciAgent;

/** The pool of connections to one origin that an Agent makes by default. */
export const Pool = require('undici/lib/dispatcher/pool.js') as typeof UndiciPool;

/** undici's connector (net or tls, with its connect timeout): what a Client uses when given none. */
export const buildConnector = require('undici/lib/core/connect.js') as typeof undiciBuildConnector;

/** undici's ProxyAgent, loaded only when a proxy is set: most runs never need its modules. */
export function loadProxyAgent(): typeof UndiciProxyAgent {
  return require('undici/lib/dispatcher/proxy-agent.js') as typeof UndiciProxyAgent;
}

export type RequestOptions = Omit<UndiciDispatcher.RequestOptions, 'origin' | 'path'> & {
  dispatcher: UndiciDispatcher;
};

/**
 * undici's top-level `request(url, { dispatcher, … })`, which lives in the index: the URL split into
 * the origin and path that `Dispatcher#request` takes.
 */
export function request(url: URL, options: RequestOptions): Promise<UndiciDispatcher.ResponseData> {
  const { dispatcher, ...rest } = options;
  return dispatcher.request({ ...rest, origin: url.origin, path: `${url.pathname}${url.search}` });
}
