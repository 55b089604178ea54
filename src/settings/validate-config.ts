import { UsageError } from '../errors.js';
import { CONFIG_KEYS, type ConfigKey, isConfigKey } from './config-keys.js';
import { validateBaseUrl } from './base-url.js';
import { parseConcurrency } from './numbers.js';
import { requireSendableToken } from './token.js';
import { voiceValueError, VOICE_CHOICES, type VoiceSettingName } from './voice.js';

export function parseConfigKey(key: string): ConfigKey {
  if (!isConfigKey(key))
    throw new UsageError(`unknown setting "${key}"`, `settings are: ${CONFIG_KEYS.join(', ')}`);
  return key;
}

/** Checks a value before it is stored, so a typo is caught at `config set` rather than mid-batch. */
export function checkConfigValue(key: ConfigKey, value: string, allowInsecureHttp: boolean): string {
  if (value === '')
    throw new UsageError(
      `an empty value for ${key}`,
      `give a value, or remove the setting with \`vredact config unset ${key}\``,
    );
  if (key === 'base-url') return validateBaseUrl(value, allowInsecureHttp).href.replace(/\/+$/, '');
  if (key === 'concurrency') parseConcurrency(value);
  if (key === 'token') requireSendableToken(value);
  if (key in VOICE_CHOICES) {
    const refused = voiceValueError(key as VoiceSettingName, value, key);
    if (refused) throw refused;
  }
  return value;
}
