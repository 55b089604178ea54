import type { Readable, Writable } from 'node:stream';
import type { ApiClient } from './api/client.js';
import { type Clock, systemClock } from './clock.js';
import { createLogger, type Logger } from './output/logger.js';
import { type ConfigStore, openConfigStore } from './settings/config-store.js';
import { type CommandFlags, requireService, resolveSettings, type Settings } from './settings/settings.js';
import { VERSION } from './version.js';

export type OutStream = Writable & { isTTY?: boolean };

export interface Streams {
  stdout: OutStream;
  stderr: OutStream;
  stdin: Readable & { isTTY?: boolean };
}

/**
 * Everything a command needs from the outside world, injected so that commands run in-process in
 * tests with fake streams, a memory config store and a fake clock.
 */
export interface Context {
  readonly streams: Streams;
  readonly env: NodeJS.ProcessEnv;
  readonly cwd: string;
  readonly clock: Clock;
  readonly config: ConfigStore;
  readonly settings: Settings;
  readonly log: Logger;
  /** Whether stdout is a terminal: tables and colour there, plain lines in a pipe. */
  readonly stdoutIsTTY: boolean;
  /** Whether stderr is a terminal: spinners only there. */
  readonly stderrIsTTY: boolean;
  /** The service client, built on first use; a usage error when no URL or token is set. */
  client(): Promise<ApiClient>;
  /** A client for the configured service with another token (login checks a token before storing it). */
  clientWithToken(token: string): Promise<ApiClient>;
  /** Closes the service client's connections, if a client was ever built. */
  close(): Promise<void>;
}

export interface ContextOptions {
  streams?: Streams;
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  clock?: Clock;
  config?: ConfigStore;
}

export async function createContext(flags: CommandFlags, options: ContextOptions = {}): Promise<Context> {
  const streams = options.streams ?? { stdout: process.stdout, stderr: process.stderr, stdin: process.stdin };
  const env = options.env ?? process.env;
  const config = options.config ?? (await openConfigStore(env));
  const settings = resolveSettings(flags, env, config);
  const clock = options.clock ?? systemClock;
  const log = createLogger(streams.stderr, settings, () => [settings.token, config.get('token')]);
  let client: ApiClient | undefined;
  const build = async (token?: string) => {
    const service = requireService(token ? { ...settings, token } : settings);
    const { ApiClient } = await import('./api/client.js');
    return new ApiClient({
      ...service,
      timeoutMs: settings.timeoutMs,
      maxRetries: settings.maxRetries,
      concurrency: settings.concurrency,
      maxThrottleWaitMs: settings.maxThrottleWaitMs,
      clock,
      log,
      userAgent: `vredact/${VERSION} node/${process.versions.node}`,
    });
  };
  return {
    streams,
    env,
    cwd: options.cwd ?? process.cwd(),
    clock,
    config,
    settings,
    log,
    stdoutIsTTY: streams.stdout.isTTY === true,
    stderrIsTTY: streams.stderr.isTTY === true,
    async client() {
      client ??= await build();
      return client;
    },
    clientWithToken: (token) => build(token),
    async close() {
      await client?.close();
    },
  };
}
