import { UsageError } from '../errors.js';
import { baseUrlProblem, validateBaseUrl } from './base-url.js';
import type { ConfigKey } from './config-keys.js';
import type { ConfigStore } from './config-store.js';
import { refuseEmptyFlag } from './empty-flag.js';
import { expandHome } from './home-path.js';
import { parseConcurrency, parseInteger, parseSeconds, parseThrottleWait } from './numbers.js';
import { ENV_NAMES, FLAG_NAMES, fromOrigin } from './setting-origin.js';
import { requireTokenForService } from './token-service.js';
import { requireSendableToken } from './token.js';
import { voiceValueError, VOICE_SETTING_NAMES, type VoiceSettings } from './voice.js';

/** Options every command accepts (commander's camelCase names). */
export interface GlobalFlags {
  baseUrl?: string;
  token?: string;
  json?: boolean;
  quiet?: boolean;
  verbose?: boolean;
  color?: boolean;
  timeout?: string;
  maxRetries?: string;
  maxThrottleWait?: string;
  allowInsecureHttp?: boolean;
}

/** Options of the commands that take them (redact, download). */
export interface CommandFlags extends GlobalFlags, VoiceSettings {
  concurrency?: string;
  outDir?: string;
}

export type SettingSource = 'flag' | 'env' | 'config' | 'default';

/**
 * The resolved settings. Values that may come from the environment or the config file
 * (`concurrency`, `voice`, `maxThrottleWaitMs`) are checked when read: a bad one throws its usage
 * error then, so `vredact config list` can still show it (with `problems`) instead of failing.
 */
export interface Settings {
  baseUrl: string | undefined;
  token: string | undefined;
  readonly concurrency: number;
  outDir: string | undefined;
  readonly voice: VoiceSettings;
  timeoutMs: number;
  /** Retries of failures other than throttling. */
  maxRetries: number;
  /** How long continuous throttling is ridden out before a request fails. */
  readonly maxThrottleWaitMs: number;
  json: boolean;
  quiet: boolean;
  verbose: boolean;
  color: boolean;
  allowInsecureHttp: boolean;
  sources: Partial<Record<ConfigKey, SettingSource>>;
  /** The config file's base-url, when the token is the config file's: the one service it goes to. */
  storedTokenFor?: string | undefined;
  /** What is wrong with a value from the environment or the config file, by key. */
  problems: Partial<Record<ConfigKey | 'max-throttle-wait', string>>;
}

export const DEFAULT_CONCURRENCY = 4;
/** Where `redact` writes, and where `status` reads, when no -o or `out-dir` is set. */
export const DEFAULT_OUT_DIR = 'redacted';
export const DEFAULT_TIMEOUT_SECONDS = 300;
export const DEFAULT_MAX_RETRIES = 4;
export const DEFAULT_MAX_THROTTLE_WAIT_MS = 30 * 60_000;
export { ENV_NAMES } from './setting-origin.js';

function pick(
  key: ConfigKey,
  flag: string | undefined,
  env: string | undefined,
  config: string | undefined,
): [string | undefined, SettingSource] {
  refuseEmptyFlag(
    flag,
    FLAG_NAMES[key],
    // `download` reads no out-dir setting: its default is the current folder.
    key === 'out-dir'
      ? 'give it a folder, or leave the flag out for the default folder'
      : `give it a value, or leave the flag out to use ${ENV_NAMES[key] ? `${ENV_NAMES[key]}, ` : ''}the config file or the default`,
  );
  if (flag !== undefined) return [flag, 'flag'];
  if (env !== undefined && env !== '') return [env, 'env'];
  if (config !== undefined && config !== '') return [config, 'config'];
  return [undefined, 'default'];
}

/**
 * Checks a value now. A bad flag throws at once; a bad value from the environment or the config file
 * throws only when the setting is read, and its problem is kept for `config list`.
 */
function deferred<T>(
  check: () => T,
  fromFlag: boolean,
  onProblem: (message: string) => void,
  fixHint: string,
): () => T {
  let value: T | undefined;
  let error: unknown;
  try {
    value = check();
  } catch (caught) {
    if (fromFlag || !(caught instanceof UsageError)) throw caught;
    error = new UsageError(caught.message, fixHint);
    onProblem(caught.message);
  }
  return () => {
    if (error !== undefined) throw error;
    return value as T;
  };
}

/** Resolves every setting: flag, then `VREDACT_*` environment, then the config file, then the default. */
export function resolveSettings(flags: CommandFlags, env: NodeJS.ProcessEnv, store: ConfigStore): Settings {
  const sources: Settings['sources'] = {};
  const problems: Settings['problems'] = {};
  const resolve = (key: ConfigKey, flag: string | undefined) => {
    const envName = ENV_NAMES[key];
    const [value, source] = pick(key, flag, envName ? env[envName] : undefined, store.get(key));
    sources[key] = source;
    return value;
  };
  // What to do about a bad value that did not come from a flag, where it came from.
  const fixHint = (key: ConfigKey) =>
    sources[key] === 'env'
      ? `correct ${ENV_NAMES[key]}, or unset it`
      : `correct it with \`vredact config set ${key} …\`, or remove it with \`vredact config unset ${key}\``;
  const origin = (key: ConfigKey) => fromOrigin(key, sources[key] ?? 'default');
  const baseUrl = resolve('base-url', flags.baseUrl);
  if (baseUrl !== undefined) {
    const problem = baseUrlProblem(baseUrl);
    if (problem) problems['base-url'] = problem;
  }
  const token = resolve('token', flags.token);
  if (token !== undefined) {
    // Kept for `config list` and `config get`, in the words every command refuses it with.
    try {
      requireSendableToken(token, sources.token);
    } catch (error) {
      problems.token = (error as Error).message;
    }
  }
  const concurrencyText = resolve('concurrency', flags.concurrency);
  const concurrency = deferred(
    () =>
      concurrencyText === undefined
        ? DEFAULT_CONCURRENCY
        : parseConcurrency(
            concurrencyText,
            sources.concurrency === 'flag' ? '-c, --concurrency' : `concurrency${origin('concurrency')}`,
          ),
    sources.concurrency === 'flag',
    (message) => (problems.concurrency = message),
    fixHint('concurrency'),
  );
  const outDirText = resolve('out-dir', flags.outDir);
  // The config file's `~/redacted` is no shell's to expand (a flag's was, by its parser).
  const outDir = outDirText === undefined ? undefined : expandHome(outDirText);
  const voice: VoiceSettings = {};
  let voiceError: UsageError | undefined;
  for (const name of VOICE_SETTING_NAMES) {
    const value = resolve(name, flags[name]);
    if (value === undefined) continue;
    const refused = voiceValueError(name, value, sources[name] === 'flag' ? `--${name}` : name);
    if (refused) {
      // A flag's is refused as the other values typed are; a stored one's hint says where to fix it.
      if (sources[name] === 'flag') throw refused;
      problems[name] = `${refused.message}${origin(name)}`;
      voiceError ??= new UsageError(problems[name] as string, fixHint(name));
      continue;
    }
    voice[name] = value;
  }
  refuseEmptyFlag(
    flags.avatar,
    '--avatar',
    "give it a value, or leave the flag out for the service's default voice",
  );
  if (flags.avatar !== undefined) voice.avatar = flags.avatar;
  refuseEmptyFlag(
    flags.maxThrottleWait,
    '--max-throttle-wait',
    'give it a duration such as 30m, or leave the flag out to use VREDACT_MAX_THROTTLE_WAIT or the default',
  );
  const throttleText = flags.maxThrottleWait ?? (env.VREDACT_MAX_THROTTLE_WAIT || undefined);
  const maxThrottleWaitMs = deferred(
    () =>
      throttleText === undefined
        ? DEFAULT_MAX_THROTTLE_WAIT_MS
        : parseThrottleWait(
            throttleText,
            flags.maxThrottleWait !== undefined ? '--max-throttle-wait' : 'VREDACT_MAX_THROTTLE_WAIT',
          ),
    flags.maxThrottleWait !== undefined,
    (message) => (problems['max-throttle-wait'] = message),
    'correct VREDACT_MAX_THROTTLE_WAIT, or unset it',
  );
  // CLICOLOR=0 is the older convention, honoured by gh and BSD's ls.
  const noColor = (env.NO_COLOR !== undefined && env.NO_COLOR !== '') || env.CLICOLOR === '0';
  return {
    baseUrl,
    token,
    storedTokenFor: sources.token === 'config' ? store.get('base-url') : undefined,
    get concurrency() {
      return concurrency();
    },
    outDir,
    get voice() {
      if (voiceError) throw voiceError;
      return voice;
    },
    timeoutMs:
      1000 *
      (flags.timeout === undefined ? DEFAULT_TIMEOUT_SECONDS : parseSeconds(flags.timeout, '--timeout')),
    maxRetries:
      flags.maxRetries === undefined
        ? DEFAULT_MAX_RETRIES
        : parseInteger(flags.maxRetries, '--max-retries', 0, 20),
    get maxThrottleWaitMs() {
      return maxThrottleWaitMs();
    },
    json: flags.json === true,
    quiet: flags.quiet === true,
    verbose: flags.verbose === true,
    color: flags.color !== false && !noColor,
    allowInsecureHttp: flags.allowInsecureHttp === true || env.VREDACT_ALLOW_INSECURE_HTTP === '1',
    sources,
    problems,
  };
}

export interface ServiceSettings {
  baseUrl: URL;
  token: string;
}

/**
 * The service URL, or a usage error that says how to set one; and the other settings a request
 * needs, read now, so that a bad value from the environment or the config file stops the command
 * before any request (and before `login` asks for a token it could not check).
 */
export function requireServiceUrl(settings: Settings): URL {
  if (!settings.baseUrl) {
    throw new UsageError(
      'no service URL is set',
      'run `vredact config set base-url https://…` or set VREDACT_BASE_URL; to try vredact locally, start `vredact sandbox`',
    );
  }
  const baseUrl = validateBaseUrl(settings.baseUrl, settings.allowInsecureHttp);
  void settings.concurrency;
  void settings.voice;
  void settings.maxThrottleWaitMs;
  return baseUrl;
}

/** The URL and token a command that talks to the service needs, or a usage error that says how to set them. */
export function requireService(settings: Settings): ServiceSettings {
  const baseUrl = requireServiceUrl(settings);
  if (!settings.token) {
    throw new UsageError('no usage token is set', 'run `vredact login`, or set VREDACT_TOKEN');
  }
  const token = requireSendableToken(settings.token, settings.sources.token);
  requireTokenForService(baseUrl, settings);
  return { baseUrl, token };
}
