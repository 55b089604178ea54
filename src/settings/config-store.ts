import { statSync } from 'node:fs';
import { dirname, isAbsolute, resolve } from 'node:path';
import type Conf from 'conf';
import { UsageError } from '../errors.js';
import { describeFsError, errnoCode, InTheWay, isLocalFsError } from '../fs/errors.js';
import { makeFolder } from '../fs/make-folder.js';
import { PRIVATE_DIR_MODE } from '../fs/private-dir.js';
import { CONFIG_KEYS, type ConfigKey } from './config-keys.js';
import { configWriteTarget, refusedLinkLine } from './config-link.js';
import { giveMadeConfigFolders } from './config-folder-owner.js';
import {
  untrustedFolderLink,
  untrustedFolderLinkError,
  untrustedFolderLinkLine,
} from './config-folder-link.js';
import { secureWrittenConfig, sudoUidOf } from './config-owner.js';
import { homeFolder } from './home-path.js';
import { configFilePath, NO_HOME, NO_HOME_HINT, PROJECT } from './config-place.js';

export { configFilePath } from './config-place.js';
import { configFolderInTheWay } from './config-in-the-way.js';
import { FIX_HINT, parseConfigText, readConfigFile } from './config-read.js';

/** The persistent settings file, behind an interface so commands can be tested with a Map. */
export interface ConfigStore {
  readonly path: string;
  /** Why there is no config file to read or write (no home folder to find it in), if there is none. */
  readonly unplaced?: string;
  /**
   * The warning of a config file not read: a link another user owns, met by root (config-link.ts),
   * or a link on the way to its folder that root does not follow (config-folder-link.ts).
   */
  readonly refusedLink?: string;
  get(key: ConfigKey): string | undefined;
  set(key: ConfigKey, value: string): Promise<void>;
  /**
   * Sets several keys in one write of the file: values that must never be found apart (the token and
   * the base-url it was checked with) are on disk together or not at all.
   */
  setAll(values: Partial<Record<ConfigKey, string>>): Promise<void>;
  delete(key: ConfigKey): Promise<void>;
  all(): Partial<Record<ConfigKey, string>>;
}

/**
 * conf, loaded with a home folder when none is known: conf loads env-paths, which asks for one as it
 * loads. conf is given the folder to write in, so that home is never used; HOME is restored at once.
 */
async function importConf(folder: string): Promise<typeof import('conf')> {
  if (homeFolder() !== undefined) return import('conf');
  process.env.HOME = folder;
  try {
    return await import('conf');
  } finally {
    delete process.env.HOME;
  }
}

const WRITE_HINT =
  'make its folder writable, or point VREDACT_CONFIG_DIR at a folder you can write to (VREDACT_TOKEN and VREDACT_BASE_URL need no file)';

/**
 * The file's permission bits when users other than its owner have any (a copy made by hand or
 * restored from a backup: `cp` under umask 022 makes it 0644), else undefined, as for a missing
 * file. POSIX modes only: Windows keeps no such bits.
 */
export function exposedConfigMode(path: string): number | undefined {
  // An in-memory store's path names no file.
  if (process.platform === 'win32' || !isAbsolute(path)) return undefined;
  try {
    const mode = statSync(path).mode & 0o777;
    return mode & 0o077 ? mode : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The permission bits of the folder that holds the config file when users other than its owner may
 * write in it and the sticky bit does not stop them replacing others' files (a folder made by hand
 * under umask 000, or `VREDACT_CONFIG_DIR` pointed at a shared one), else undefined. They could swap
 * the file for one whose base-url is their server, and the next run would send it the token.
 */
export function swappableConfigFolder(path: string): { folder: string; mode: number } | undefined {
  // An in-memory store's path names no folder.
  if (process.platform === 'win32' || !isAbsolute(path)) return undefined;
  const folder = dirname(path);
  try {
    const mode = statSync(folder).mode & 0o7777;
    return mode & 0o022 && !(mode & 0o1000) ? { folder, mode: mode & 0o777 } : undefined;
  } catch {
    return undefined;
  }
}

/**
 * A key's value as text. A number written by hand (`"concurrency": 8`) is taken as its digits and
 * null as unset; any other kind stops the command rather than being dropped without a word.
 */
function settingText(value: unknown, key: ConfigKey, path: string): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'string') return value;
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  const kind =
    typeof value === 'boolean' ? 'true or false' : Array.isArray(value) ? 'a list' : `an ${typeof value}`;
  throw new UsageError(`the config file ${path} holds ${kind} as ${key}, where a setting is text`, FIX_HINT);
}

/**
 * Opens the config file. Every command reads it, so reading is a plain JSON read; conf, whose
 * schema library alone costs more start-up time than the rest of a command, is loaded only by
 * `set` and `delete`, which need its atomic write.
 */
export async function openConfigStore(env: NodeJS.ProcessEnv): Promise<ConfigStore> {
  const path = await configFilePath(env);
  if (path === undefined) return unplacedConfigStore();
  const uid = process.geteuid?.();
  const sudoUid = sudoUidOf(uid, env);
  const file = readConfigFile(path, uid, { sudoUid });
  const values = new Map<ConfigKey, string>();
  for (const key of CONFIG_KEYS) {
    const value = settingText(file.values[key], key, path);
    if (value !== undefined) values.set(key, value);
  }
  const write = async (change: (conf: Conf<Record<string, string>>) => void) => {
    try {
      // Checked before a folder is made: makeFolder follows such a link as well.
      const folderLink = untrustedFolderLink(path, uid);
      if (folderLink) throw untrustedFolderLinkError(path, folderLink);
      // conf makes missing folders with the umask's mode (0777 under umask 000): whoever could write
      // in the folder could swap the file, and point the next run's token at their own server.
      giveMadeConfigFolders(await makeFolder(resolve(path, '..'), PRIVATE_DIR_MODE));
      const target = configWriteTarget(path, uid, sudoUid);
      const { default: ConfCtor } = await importConf(dirname(path));
      const conf = new ConfCtor<Record<string, string>>({
        ...PROJECT,
        configFileMode: 0o600,
        cwd: dirname(path),
        // conf reads the file again before it writes: by the same rule, or it refuses a file read here.
        deserialize: (text) => parseConfigText(text) as Record<string, string>,
      });
      change(conf);
      secureWrittenConfig(target);
    } catch (error) {
      if (error instanceof InTheWay) throw configFolderInTheWay(path, 'write', error);
      // Said of the file, not of conf's temporary name beside it (`config.json.tmp-…`).
      if (!isLocalFsError(error)) throw error;
      throw new UsageError(
        `cannot write the config file ${path}: ${describeFsError(error)} (${errnoCode(error)})`,
        WRITE_HINT,
      );
    }
  };
  const setAll = async (given: Partial<Record<ConfigKey, string>>) => {
    const entries = Object.entries(given) as [ConfigKey, string][];
    // conf's set of an object is one atomic write of the whole file (a temporary name, renamed).
    await write((conf) => conf.set(Object.fromEntries(entries)));
    for (const [key, value] of entries) values.set(key, value);
  };
  return {
    path,
    ...(file.refusedLink && { refusedLink: refusedLinkLine(file.refusedLink) }),
    ...(file.refusedFolder && { refusedLink: untrustedFolderLinkLine(file.refusedFolder) }),
    get: (key) => values.get(key),
    set: (key, value) => setAll({ [key]: value }),
    setAll,
    delete: async (key) => {
      await write((conf) => conf.delete(key));
      values.delete(key);
    },
    all: () => {
      const out: Partial<Record<ConfigKey, string>> = {};
      for (const key of CONFIG_KEYS) if (values.has(key)) out[key] = values.get(key);
      return out;
    },
  };
}

/**
 * The config file's place, its values unread: `config path` says where the file is even when it is
 * broken, as that is where the user must go to fix it.
 */
export async function unreadConfigStore(env: NodeJS.ProcessEnv): Promise<ConfigStore> {
  const path = await configFilePath(env);
  return path === undefined ? unplacedConfigStore() : memoryConfigStore({}, path);
}

/** The config file's path; a usage error where no home folder is known to find it in. */
export function placedConfigPath(store: ConfigStore): string {
  if (store.unplaced) throw new UsageError(NO_HOME, NO_HOME_HINT);
  return store.path;
}

/** No config file where no home folder is known: none to read, and a usage error to write one. */
function unplacedConfigStore(): ConfigStore {
  const refuse = async () => {
    throw new UsageError(NO_HOME, NO_HOME_HINT);
  };
  return {
    path: '(no config folder)',
    unplaced: `no config file is read: ${NO_HOME}; ${NO_HOME_HINT} to use one`,
    get: () => undefined,
    set: refuse,
    setAll: refuse,
    delete: refuse,
    all: () => ({}),
  };
}

/** An in-memory store for in-process tests. */
export function memoryConfigStore(
  initial: Partial<Record<ConfigKey, string>> = {},
  path = '(memory)',
): ConfigStore {
  const values = new Map<ConfigKey, string>(Object.entries(initial) as [ConfigKey, string][]);
  return {
    path,
    get: (key) => values.get(key),
    set: async (key, value) => void values.set(key, value),
    setAll: async (given) => {
      for (const [key, value] of Object.entries(given) as [ConfigKey, string][]) values.set(key, value);
    },
    delete: async (key) => void values.delete(key),
    all: () => Object.fromEntries(values) as Partial<Record<ConfigKey, string>>,
  };
}
