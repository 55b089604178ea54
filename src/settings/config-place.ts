/**
 * Where the config file is, and what is said where that cannot be known.
 */
import { join, resolve } from 'node:path';
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
 * platform's config folder (`$XDG_CONFIG_HOME/vredact` on Linux). It is conf's own rule, with
 * conf's own env-paths, so that the file conf writes is the one read here. Where no home folder is
 * known, env-paths, which needs one, is not loaded: it asks for it as it loads and every command
 * crashed there (a container run as an arbitrary uid, HOME unset). Its rule needs none where
 * XDG_CONFIG_HOME is set (as such containers often do), so that folder is used, by the same rule;
 * with neither, the answer is undefined.
 */
export async function configFilePath(
  env: NodeJS.ProcessEnv,
  // `null`: no home folder is known (an explicit undefined would take the default).
  home: string | null = homeFolder() ?? null,
  platform: NodeJS.Platform = process.platform,
): Promise<string | undefined> {
  if (env.VREDACT_CONFIG_DIR) return join(resolve(env.VREDACT_CONFIG_DIR), 'config.json');
  if (home === null) {
    const xdg = usesXdg(platform) ? env.XDG_CONFIG_HOME : undefined;
    return xdg ? join(xdg, PROJECT.projectName + PROJECT.projectSuffix, 'config.json') : undefined;
  }
  const { default: envPaths } = await import('env-paths');
  return join(envPaths(PROJECT.projectName, { suffix: PROJECT.projectSuffix }).config, 'config.json');
}
