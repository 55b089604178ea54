/**
 * Where a setting in effect came from, in the words every message uses: a flag, a `VREDACT_*`
 * environment variable, the config file or the default. A hint that sends the user to
 * `vredact config get base-url` is wrong for a URL given with --base-url or VREDACT_BASE_URL: the
 * config file is not where it is set, and a new `config set` would not change it (baseUrlPointer).
 */
import type { ConfigKey } from './config-keys.js';
import type { SettingSource } from './settings.js';

export const ENV_NAMES: Partial<Record<ConfigKey | 'max-throttle-wait', string>> = {
  'base-url': 'VREDACT_BASE_URL',
  token: 'VREDACT_TOKEN',
  concurrency: 'VREDACT_CONCURRENCY',
  'max-throttle-wait': 'VREDACT_MAX_THROTTLE_WAIT',
};

/** The flag of each key that has one, as an error names it. */
export const FLAG_NAMES: Record<ConfigKey, string> = {
  'base-url': '--base-url',
  token: '--token',
  concurrency: '--concurrency',
  'out-dir': '--out-dir',
  age: '--age',
  gender: '--gender',
  language: '--language',
  model: '--model',
  emotion: '--emotion',
};

/** `--base-url`, `VREDACT_BASE_URL`, `the config file`, `the default`. */
export function settingOrigin(key: ConfigKey, source: SettingSource): string {
  switch (source) {
    case 'flag':
      return FLAG_NAMES[key];
    case 'env':
      return ENV_NAMES[key] ?? `the environment`;
    case 'config':
      return 'the config file';
    default:
      return 'the default';
  }
}

/** ` (from VREDACT_TOKEN)` after a setting's name in a message; nothing for a default. */
export function fromOrigin(key: ConfigKey, source: SettingSource): string {
  return source === 'default' ? '' : ` (from ${settingOrigin(key, source)})`;
}

/** Where a hint sends the user for a base URL from the config file: it shows the one in effect. */
const SHOW_BASE_URL = '`vredact config get base-url`';

/**
 * Where every hint about the base URL sends the user to check it: `vredact config get base-url` for
 * one from the config file (or an unknown source), the flag or the variable that set it otherwise,
 * since the config file is not where it is set there: `the URL given with --base-url`.
 */
export function baseUrlPointer(source: SettingSource | undefined): string {
  if (source !== 'flag' && source !== 'env') return SHOW_BASE_URL;
  const origin = settingOrigin('base-url', source);
  return source === 'flag' ? `the URL given with ${origin}` : `the URL set in ${origin}`;
}

/** Where a hint sends the user to see and to change the base URL in effect. */
export function baseUrlShowAndSet(source: SettingSource | undefined): string {
  if (source !== 'flag' && source !== 'env')
    return `${SHOW_BASE_URL} shows it, \`vredact config set base-url <url>\` sets it`;
  return `it is ${baseUrlPointer(source)}`;
}

/**
 * How a hint says to set the base URL to `url`: the command for one from the config file, where it
 * is set otherwise (`vredact config set` does not change a URL that the flag or the variable gives).
 */
export function baseUrlSetTo(source: SettingSource | undefined, url: string): string {
  if (source !== 'flag' && source !== 'env') return `\`vredact config set base-url ${url}\``;
  return `it is ${baseUrlPointer(source)}`;
}
