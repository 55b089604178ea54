/**
 * How long the client reuses an idle keep-alive connection. Servers and proxies close idle
 * connections, often without saying when (nginx, a load balancer, gunicorn, HAProxy); an upload
 * written on a connection the server is closing at that moment gets no answer, and its fate is
 * unknown (upload-fate.ts): the file waits for a look-up instead of being done. undici reuses a
 * connection idle up to 4 s when the server names no timeout: one-second idle timeouts lost a file in
 * every pause. Idle for longer than the limits below, a connection is closed by the client first and
 * the next request opens a new one: one handshake after a pause of half a second or more, against a
 * file lost to a race.
 */
import type { AgentOptions } from './dispatcher.js';

/** Idle time after which a connection is not reused: under the shortest idle timeouts met in use. */
export const IDLE_REUSE_MS = 500;

export const CONNECTION_REUSE = {
  // A server that names no timeout (`Keep-Alive: timeout=N`).
  keepAliveTimeout: IDLE_REUSE_MS,
  // A server that names one: that timeout less undici's margin of 2 s (`keepAliveTimeoutThreshold`),
  // never longer than ours, as a proxy may pass on a header of the server behind it and close sooner.
  keepAliveMaxTimeout: IDLE_REUSE_MS,
} as const satisfies AgentOptions;
