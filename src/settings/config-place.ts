/**
 * Where the config file is, and what is said where that cannot be known.
 */
import { isAbsolute, join, resolve } from 'node:path';
import { homeFolder } from './home-path.js';

export const PROJECT = { projectName: 'vredact', projectSuffix: '' } as const;

/** Whether the platform's config folder is XDG_CONFIG_HOME's (env-paths' rule: neither macOS nor Windows). */
const usesXdg = (platform: NodeJS.Platform): boolean => platform !== 'darwin' && platform !== 'win32';

/** The usage error of a command that must write the config file where no folder for it is known. */
export const NO_HOME =
  'cannot find a home folder for the config (HOME is unset and this user has no passwd entry)';
export const NO_HOME_HINT = usesXdg(process.platform)
  ? 'set HOME, XDG_CONFIG_HOME or VREDACT_CONFIG_DIR'
  : 'set HOME or VREDACT_CONFIG_DIR';

/**
 * Where the file is: the folder `VREDACT_CONFIG_DIR` names (tests, several accounts), else the
 * platform's config folder (`$XDG_CONFIG_HOME/vredact` on Linux). It is conf's own rule (env-paths'),
 * so that the file is where conf would put it; conf is given that folder, and never looks itself.
 * A relative XDG_CONFIG_HOME is ignored, as the XDG rule says: env-paths took it from the current
 * folder, and a cron job run from another folder read and wrote another file. Where no home folder
 * is known, env-paths, which needs one, is not loaded: it asks for it as it loads and every command
 * crashed there (a container run as an arbitrary uid, HOME unset); XDG_CONFIG_HOME (as such
 * containers often set) still places the file, and with neither the answer is undefined.
 */
export async function configFilePath(
  env: NodeJS.ProcessEnv,
  // `null`: no home folder is known (an explicit undefined would take the default).
  home: string | null = homeFolder() ?? null,
  platform: NodeJS.Platform = process.platform,
): Promise<string | undefined> {
  if (env.VREDACT_CONFIG_DIR) return join(resolve(env.VREDACT_CONFIG_DIR), 'config.json');
  const name = PROJECT.projectName + PROJECT.projectSuffix;
  if (usesXdg(platform)) {
    const xdg = env.XDG_CONFIG_HOME;
    if (xdg && isAbsolute(xdg)) return join(xdg, name, 'config.json');
    return home === null ? undefined : join(home, '.config', name, 'config.json');
  }
  if (home === null) return undefined;
  const { default: envPaths } = await import('env-paths');
  return join(envPaths(PROJECT.projectName, { suffix: PROJECT.projectSuffix }).config, 'config.json');
}
