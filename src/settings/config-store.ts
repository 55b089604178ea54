import { chmodSync } from 'node:fs';
import type Conf from 'conf';

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

/** The persistent settings file, behind an interface so commands can be tested with a Map. */
export interface ConfigStore {
  readonly path: string;
  get(key: ConfigKey): string | undefined;
  set(key: ConfigKey, value: string): void;
  delete(key: ConfigKey): void;
  all(): Partial<Record<ConfigKey, string>>;
}

/**
 * Opens the `conf` store. `VREDACT_CONFIG_DIR` moves it (tests, several accounts); otherwise
 * conf picks the platform's config folder (`$XDG_CONFIG_HOME/vredact` on Linux).
 */
export async function openConfigStore(env: NodeJS.ProcessEnv): Promise<ConfigStore> {
  const { default: ConfCtor } = await import('conf');
  const conf: Conf<Record<string, string>> = new ConfCtor({
    projectName: 'vredact',
    projectSuffix: '',
    configFileMode: 0o600,
    ...(env.VREDACT_CONFIG_DIR ? { cwd: env.VREDACT_CONFIG_DIR } : {}),
  });
  // conf applies the mode when it creates the file; a file made by hand or an older version may
  // be wider, and it holds the token.
  const tighten = () => chmodSync(conf.path, 0o600);
  return {
    path: conf.path,
    get: (key) => {
      const value = conf.get(key);
      return typeof value === 'string' ? value : undefined;
    },
    set: (key, value) => {
      conf.set(key, value);
      tighten();
    },
    delete: (key) => {
      conf.delete(key);
      tighten();
    },
    all: () => {
      const out: Partial<Record<ConfigKey, string>> = {};
      for (const key of CONFIG_KEYS) {
        const value = conf.get(key);
        if (typeof value === 'string') out[key] = value;
      }
      return out;
    },
  };
}

/** An in-memory store for in-process tests. */
export function memoryConfigStore(initial: Partial<Record<ConfigKey, string>> = {}): ConfigStore {
  const values = new Map<ConfigKey, string>(Object.entries(initial) as [ConfigKey, string][]);
  return {
    path: '(memory)',
    get: (key) => values.get(key),
    set: (key, value) => void values.set(key, value),
    delete: (key) => void values.delete(key),
    all: () => Object.fromEntries(values) as Partial<Record<ConfigKey, string>>,
  };
}
