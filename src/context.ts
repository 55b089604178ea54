import type { ApiClient } from './api/client.js';
import { type Clock, systemClock } from './clock.js';
import { BadValueError } from './settings/bad-value.js';
import { createIOStreams, type IOStreams, type Streams } from './output/iostreams.js';
import { createLogger, type Logger } from './output/logger.js';
import { maskingStream } from './output/secret-backstop.js';
import { parseDurationMs } from './redact/options.js';
import {
  type ConfigStore,
  exposedConfigMode,
  openConfigStore,
  swappableConfigFolder,
} from './settings/config-store.js';
import { type ForeignOwner, foreignConfigOwners } from './settings/config-owner.js';
import { type UnsafeParent, unsafeConfigParents } from './settings/config-parents.js';
import { type CommandFlags, requireService, resolveSettings, type Settings } from './settings/settings.js';
import { VERSION } from './version.js';

export type { OutStream, Streams } from './output/iostreams.js';

/** Flags of the terminal's behaviour, on the commands that show progress (redact, download). */
export interface TerminalFlags {
  /** `--progress` (true) / `--no-progress` (false). */
  progress?: boolean;
  /** `--stats <interval>`. */
  stats?: string;
}

/**
 * Everything a command needs from the outside world, injected so that commands run in-process in
 * tests with fake streams, a memory config store and a fake clock.
 */
export interface Context {
  /** The streams and everything known about the terminal; what output code takes. */
  readonly io: IOStreams;
  /** The same streams as `io` (for commands that only write). */
  readonly streams: Streams;
  readonly env: NodeJS.ProcessEnv;
  readonly cwd: string;
  readonly clock: Clock;
  readonly config: ConfigStore;
  readonly settings: Settings;
  readonly log: Logger;
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
  /**
   * The command rewrites the config file, 0600 (`config set`, `logout`): whether it is still exposed
   * is known only after it, so the caller asks then (warnIfTokenExposed), not the context at its start.
   */
  rewritesConfig?: boolean;
}

/** `--stats <interval>` in milliseconds; a usage error when it is not an interval. */
export function parseStatsInterval(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const ms = parseDurationMs(text);
  if (ms === undefined || ms < 100) {
    throw new BadValueError(
      `--stats must be an interval of at least 0.1s, such as 30s, 5m or 60 (got "${text}")`,
    );
  }
  return ms;
}

/**
 * The config file holds the token: every command says so while other users can read it, as vredact
 * makes it 0600 only when it writes it; or while they can change or swap it (it or its folder is
 * theirs, or theirs to write in), whatever it holds: a base-url of theirs would be sent the token in
 * effect.
 */
export function warnIfTokenExposed(
  config: ConfigStore,
  log: Logger,
  owners: ForeignOwner[] = foreignConfigOwners(config.path),
): void {
  // A file in a folder another user owns is theirs to replace: the folder's line says what to do. A
  // link root did not read has a line of its own (createContext's): nothing of it was used.
  const folderForeign = owners.some(({ what }) => what === 'folder');
  for (const { what, path, uid } of owners)
    if (what === 'folder' || (!folderForeign && !config.refusedLink))
      log.warn(foreignOwnerLine(what, path, uid));
  // Whoever owns a folder above can swap everything below it, and the fix is one for all (another
  // config folder): the highest such folder is said, and none where the config folder's own line says it.
  const parents = unsafeConfigParents(config.path);
  const highestOwned = parents.filter((parent) => 'uid' in parent).at(-1);
  for (const parent of parents)
    if (!('uid' in parent) || (!folderForeign && parent === highestOwned)) log.warn(unsafeParentLine(parent));
  const swappable = swappableConfigFolder(config.path);
  if (swappable) {
    const { folder, mode } = swappable;
    log.warn(
      `the config file's folder ${folder} can be written by other users (mode 0${mode.toString(8)}): they could replace the config file and have the token sent to their server; run \`chmod 700 ${folder}\``,
    );
  }
  const mode = config.refusedLink ? undefined : exposedConfigMode(config.path);
  if (mode === undefined) return;
  const path = config.path;
  if (config.get('token') !== undefined) {
    log.warn(
      `the config file ${path} holds the token and is not private (mode 0${mode.toString(8)}: other users can read or change it); run \`chmod 600 ${path}\``,
    );
  } else if (mode & 0o022) {
    log.warn(
      `the config file ${path} can be changed by other users (mode 0${mode.toString(8)}): they could set its base-url to their server and have the token sent there; run \`chmod 600 ${path}\``,
    );
  }
}

/** The warning for a folder above the config file's that another user owns or may write in. */
function unsafeParentLine(parent: UnsafeParent): string {
  const risk = `they could move the config file's folder away and put one of theirs in its place, with their server as its base-url`;
  return 'uid' in parent
    ? `the folder ${parent.path} above the config file is owned by another user (uid ${parent.uid}): ${risk}; point VREDACT_CONFIG_DIR at a folder of your own (or unset it)`
    : `the folder ${parent.path} above the config file can be written by other users (mode 0${parent.mode.toString(8)}): ${risk}; run \`chmod go-w ${parent.path}\``;
}

/** The warning for a config folder or file another user owns: the bits cannot help, they can change them. */
function foreignOwnerLine(what: ForeignOwner['what'], path: string, uid: number): string {
  return what === 'folder'
    ? `the config file's folder ${path} is owned by another user (uid ${uid}): they could replace the config file and have the token sent to their server; point VREDACT_CONFIG_DIR at a folder of your own (or unset it)`
    : `the config file ${path} is owned by another user (uid ${uid}): they could set its base-url to their server and have the token sent there; remove it and set the values again (\`vredact login\`, \`vredact config set\`), or point VREDACT_CONFIG_DIR at a folder of your own`;
}

export async function createContext(
  flags: CommandFlags & TerminalFlags,
  options: ContextOptions = {},
): Promise<Context> {
  const given = options.streams ?? { stdout: process.stdout, stderr: process.stderr, stdin: process.stdin };
  const env = options.env ?? process.env;
  const config = options.config ?? (await openConfigStore(env));
  const settings = resolveSettings(flags, env, config);
  // The token in effect and the stored one, masked in whatever a command writes (the sandbox's
  // context has neither: the token it prints is its own, for the user to use).
  const secrets = () => [settings.token, config.get('token')];
  const streams: Streams = {
    stdout: maskingStream(given.stdout, secrets),
    stderr: maskingStream(given.stderr, secrets),
    stdin: given.stdin,
  };
  const clock = options.clock ?? systemClock;
  const io = createIOStreams({
    streams,
    env,
    color: settings.color,
    quiet: settings.quiet,
    verbose: settings.verbose,
    json: settings.json,
    progress: flags.progress,
    statsIntervalMs: parseStatsInterval(flags.stats),
  });
  const log = createLogger(io.stderr, settings);
  if (config.unplaced) log.debug(config.unplaced);
  if (config.refusedLink) log.warn(config.refusedLink);
  if (!options.rewritesConfig) warnIfTokenExposed(config, log);
  let client: ApiClient | undefined;
  const build = async (token?: string) => {
    // A token given to the command itself (`login` checking one) is no stored one.
    const service = requireService(token ? { ...settings, token, storedTokenFor: undefined } : settings);
    const [{ ApiClient }, { proxySettingsFrom }] = await Promise.all([
      import('./api/client.js'),
      import('./api/proxy.js'),
    ]);
    return new ApiClient({
      ...service,
      proxies: proxySettingsFrom(env),
      timeoutMs: settings.timeoutMs,
      maxRetries: settings.maxRetries,
      concurrency: settings.concurrency,
      maxThrottleWaitMs: settings.maxThrottleWaitMs,
      tokenSource: token ? undefined : settings.sources.token,
      baseUrlSource: settings.sources['base-url'],
      clock,
      log,
      userAgent: `vredact/${VERSION} node/${process.versions.node}`,
    });
  };
  return {
    io,
    streams,
    env,
    cwd: options.cwd ?? process.cwd(),
    clock,
    config,
    settings,
    log,
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
