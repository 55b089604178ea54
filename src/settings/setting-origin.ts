/**
 * Where a setting in effect came from, in the words every message uses: a flag, a `VREDACT_*`
 * environment variable, the config file or the default. A hint that sends the user to
 * `vredact config get base-url` is wrong for a URL given with --base-url or VREDACT_BASE_URL: the
 * config file is not where it is set, and a new `config set` would not change it.
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

/** How hints point at the base URL in effect (it shows the config file's, or says what overrides it). */
const SHOW_BASE_URL = '`vredact config get base-url`';
const SHOW_AND_SET_BASE_URL = `${SHOW_BASE_URL} shows it, \`vredact config set base-url <url>\` sets it`;

/**
 * `hint` with its pointers at `vredact config get base-url` naming where the base URL came from
 * instead, when that is a flag or the environment: `check that the base URL points at the service
 * (the URL given with --base-url)`. Unchanged for one from the config file, which that command shows.
 */
export function baseUrlHintFor(hint: string, source: SettingSource | undefined): string {
  if (source !== 'flag' && source !== 'env') return hint;
  const origin = settingOrigin('base-url', source);
  const url = source === 'flag' ? `the URL given with ${origin}` : `the URL set in ${origin}`;
  return hint.replace(SHOW_AND_SET_BASE_URL, `it is ${url}`).replaceAll(SHOW_BASE_URL, url);
}
