import type { Context } from '../../context.js';
import { CliError, ExitCode } from '../../errors.js';
import { printJson, printTable } from '../../output/table.js';
import { CONFIG_KEYS, type ConfigKey } from '../../settings/config-store.js';
import { maskToken } from '../../settings/mask.js';
import type { Settings } from '../../settings/settings.js';
import { checkConfigValue, parseConfigKey } from '../../settings/validate-config.js';
import { readAllStdin } from '../read-stdin.js';

/** The value a user may see: a token only masked. */
function shown(key: ConfigKey, value: string | undefined): string {
  if (value === undefined) return '';
  return key === 'token' ? maskToken(value) : value;
}

/** The effective value of a key, from the resolved settings (flag, environment, file, default). */
function effective(settings: Settings, key: ConfigKey): string | undefined {
  switch (key) {
    case 'base-url':
      return settings.baseUrl;
    case 'token':
      return settings.token;
    case 'concurrency':
      return String(settings.concurrency);
    case 'out-dir':
      return settings.outDir ?? './redacted';
    default:
      return settings.voice[key];
  }
}

export async function runConfigSet(ctx: Context, [key = '', value = '']: string[]): Promise<number> {
  const name = parseConfigKey(key);
  const raw = value === '-' ? await readAllStdin(ctx.streams.stdin) : value;
  ctx.config.set(name, checkConfigValue(name, raw, ctx.settings.allowInsecureHttp));
  ctx.log.info(`Set ${name} in ${ctx.config.path}`);
  return ExitCode.ok;
}

export async function runConfigGet(ctx: Context, [key = '']: string[]): Promise<number> {
  const name = parseConfigKey(key);
  const value = effective(ctx.settings, name);
  if (ctx.settings.json) {
    printJson(ctx.io, {
      key: name,
      value: value === undefined ? null : shown(name, value),
      source: ctx.settings.sources[name] ?? 'default',
    });
    return value === undefined ? ExitCode.partial : ExitCode.ok;
  }
  if (value === undefined)
    throw new CliError(
      `${name} is not set`,
      ExitCode.partial,
      `set it with \`vredact config set ${name} …\``,
    );
  ctx.streams.stdout.write(`${shown(name, value)}\n`);
  return ExitCode.ok;
}

export async function runConfigUnset(ctx: Context, [key = '']: string[]): Promise<number> {
  const name = parseConfigKey(key);
  ctx.config.delete(name);
  ctx.log.info(`Unset ${name}`);
  return ExitCode.ok;
}

export async function runConfigList(ctx: Context): Promise<number> {
  const rows = CONFIG_KEYS.map((key) => {
    const value = effective(ctx.settings, key);
    return {
      key,
      value: value === undefined ? null : shown(key, value),
      source: ctx.settings.sources[key] ?? 'default',
    };
  });
  if (ctx.settings.json) {
    printJson(ctx.io, rows);
    return ExitCode.ok;
  }
  await printTable(
    ctx.io,
    ['KEY', 'VALUE', 'SOURCE'],
    rows.map((row) => [row.key, row.value ?? '', row.value === null ? 'unset' : row.source]),
  );
  return ExitCode.ok;
}

export async function runConfigPath(ctx: Context): Promise<number> {
  ctx.streams.stdout.write(`${ctx.config.path}\n`);
  return ExitCode.ok;
}
