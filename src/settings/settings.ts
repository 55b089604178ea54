import { UsageError } from '../errors.js';
import type { ConfigKey, ConfigStore } from './config-store.js';
import { checkVoiceValue, VOICE_SETTING_NAMES, type VoiceSettings } from './voice.js';

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
  allowInsecureHttp?: boolean;
}

/** Options of the commands that take them (redact, download). */
export interface CommandFlags extends GlobalFlags, VoiceSettings {
  concurrency?: string;
  outDir?: string;
}

export type SettingSource = 'flag' | 'env' | 'config' | 'default';

export interface Settings {
  baseUrl: string | undefined;
  token: string | undefined;
  concurrency: number;
  outDir: string | undefined;
  voice: VoiceSettings;
  timeoutMs: number;
  maxRetries: number;
  json: boolean;
  quiet: boolean;
  verbose: boolean;
  color: boolean;
  allowInsecureHttp: boolean;
  sources: Partial<Record<ConfigKey, SettingSource>>;
}

export const DEFAULT_CONCURRENCY = 4;
export const DEFAULT_TIMEOUT_SECONDS = 300;
export const DEFAULT_MAX_RETRIES = 4;

function pick(
  flag: string | undefined,
  env: string | undefined,
  config: string | undefined,
): [string | undefined, SettingSource] {
  if (flag !== undefined && flag !== '') return [flag, 'flag'];
  if (env !== undefined && env !== '') return [env, 'env'];
  if (config !== undefined && config !== '') return [config, 'config'];
  return [undefined, 'default'];
}

function parseInteger(text: string, what: string, min: number, max: number): number {
  const n = Number(text);
  if (!Number.isInteger(n) || n < min || n > max) {
    throw new UsageError(`${what} must be a whole number from ${min} to ${max} (got "${text}")`);
  }
  return n;
}

function parseSeconds(text: string, what: string): number {
  const n = Number(text);
  if (!Number.isFinite(n) || n <= 0) throw new UsageError(`${what} must be a positive number of seconds`);
  return n;
}

/** Resolves every setting: flag, then `VREDACT_*` environment, then the config file, then the default. */
export function resolveSettings(flags: CommandFlags, env: NodeJS.ProcessEnv, store: ConfigStore): Settings {
  const sources: Settings['sources'] = {};
  const resolve = (key: ConfigKey, flag: string | undefined, envName?: string) => {
    const [value, source] = pick(flag, envName ? env[envName] : undefined, store.get(key));
    sources[key] = source;
    return value;
  };
  const baseUrl = resolve('base-url', flags.baseUrl, 'VREDACT_BASE_URL');
  const token = resolve('token', flags.token, 'VREDACT_TOKEN');
  const concurrencyText = resolve('concurrency', flags.concurrency, 'VREDACT_CONCURRENCY');
  const outDir = resolve('out-dir', flags.outDir);
  const voice: VoiceSettings = {};
  for (const name of VOICE_SETTING_NAMES) {
    const value = resolve(name, flags[name]);
    if (value === undefined) continue;
    const problem = checkVoiceValue(name, value);
    if (problem) throw new UsageError(problem);
    voice[name] = value;
  }
  if (flags.avatar) voice.avatar = flags.avatar;
  const noColor = env.NO_COLOR !== undefined && env.NO_COLOR !== '';
  return {
    baseUrl,
    token,
    concurrency:
      concurrencyText === undefined
        ? DEFAULT_CONCURRENCY
        : parseInteger(concurrencyText, 'concurrency', 1, 64),
    outDir,
    voice,
    timeoutMs:
      1000 *
      (flags.timeout === undefined ? DEFAULT_TIMEOUT_SECONDS : parseSeconds(flags.timeout, '--timeout')),
    maxRetries:
      flags.maxRetries === undefined
        ? DEFAULT_MAX_RETRIES
        : parseInteger(flags.maxRetries, '--max-retries', 0, 20),
    json: flags.json === true,
    quiet: flags.quiet === true,
    verbose: flags.verbose === true,
    color: flags.color !== false && !noColor,
    allowInsecureHttp: flags.allowInsecureHttp === true || env.VREDACT_ALLOW_INSECURE_HTTP === '1',
    sources,
  };
}

const LOOPBACK_HOSTS = new Set(['localhost', '[::1]', '::1']);

export function isLoopbackHost(hostname: string): boolean {
  return LOOPBACK_HOSTS.has(hostname) || /^127(\.\d{1,3}){3}$/.test(hostname);
}

/**
 * Checks a base URL: https anywhere, http only on loopback unless the user insists, because the
 * token would otherwise cross the network in clear text.
 */
export function validateBaseUrl(text: string, allowInsecureHttp: boolean): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new UsageError(
      `the service URL "${text}" is not a valid URL`,
      'set it like https://redaction.example.com',
    );
  }
  if (url.protocol === 'https:') return url;
  if (url.protocol !== 'http:')
    throw new UsageError(`the service URL must start with https:// (got ${url.protocol}//)`);
  if (isLoopbackHost(url.hostname) || allowInsecureHttp) return url;
  throw new UsageError(
    `refusing to send the token over plain http to ${url.host}`,
    'use an https:// URL, or pass --allow-insecure-http if you really mean it',
  );
}

export interface ServiceSettings {
  baseUrl: URL;
  token: string;
}

/** The URL and token a command that talks to the service needs, or a usage error that says how to set them. */
export function requireService(settings: Settings): ServiceSettings {
  if (!settings.baseUrl) {
    throw new UsageError(
      'no service URL is set',
      'run `vredact config set base-url https://…` or set VREDACT_BASE_URL; to try vredact locally, start `vredact sandbox`',
    );
  }
  const baseUrl = validateBaseUrl(settings.baseUrl, settings.allowInsecureHttp);
  if (!settings.token) {
    throw new UsageError('no usage token is set', 'run `vredact login`, or set VREDACT_TOKEN');
  }
  return { baseUrl, token: settings.token };
}
