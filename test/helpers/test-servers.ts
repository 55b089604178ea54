/** HTTP servers a unit test starts on an ephemeral loopback port, closed after each test. */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach } from 'vitest';

/** Generous: the machine may be busy; a wait ends as soon as its condition holds. */
export const WAIT = { timeout: 10_000 };

/**
 * Returns `listen(server)`, which starts a server on 127.0.0.1 and resolves to its base URL; every
 * server it started is closed (its connections too) after each test of the calling file.
 */
export function loopbackServers(): (server: Server) => Promise<string> {
  const servers: Server[] = [];
  afterEach(async () => {
    for (const server of servers.splice(0)) {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
  return async (server) => {
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  };
}
