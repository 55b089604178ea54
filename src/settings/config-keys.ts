/**
 * The settings the config file may hold. Apart from the store (config-store.ts) so that building the
 * command tree, which `--help` does, loads nothing the store needs to find and read the file.
 */

/** Keys a user may set with `vredact config set`. */
export const CONFIG_KEYS = [
  'base-url',
  'token',
  'concurrency',
  'out-dir',
  'age',
  'gender',
  'language',
  'model',
  'emotion',
] as const;
export type ConfigKey = (typeof CONFIG_KEYS)[number];

export function isConfigKey(key: string): key is ConfigKey {
  return (CONFIG_KEYS as readonly string[]).includes(key);
}
