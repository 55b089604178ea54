import type { Context } from '../../context.js';
import { promptSecret, TOKEN_QUESTION } from '../auth/prompt-secret.js';
import { CliError, ExitCode } from '../../errors.js';
import { printJson, printTable } from '../../output/table.js';
import { CONFIG_KEYS, type ConfigKey } from '../../settings/config-keys.js';
import { placedConfigPath } from '../../settings/config-store.js';
import { maskToken } from '../../settings/mask.js';
import { displayBaseUrl } from '../../settings/base-url.js';
import { ENV_NAMES } from '../../settings/settings.js';
import { readStdinValue } from '../../settings/stdin-value.js';
import { displayText } from '../../output/sanitize.js';
import { checkConfigValue, parseConfigKey } from '../../settings/validate-config.js';
import { VOICE_SETTING_NAMES, type VoiceSettingName } from '../../settings/voice.js';

const isVoiceKey = (key: ConfigKey): key is VoiceSettingName =>
  (VOICE_SETTING_NAMES as readonly string[]).includes(key);

/** The value a user may see: a token only masked, a base URL without any user information. */
function shown(key: ConfigKey, value: string | undefined): string {
  if (value === undefined) return '';
  if (key === 'token') return maskToken(value);
  if (key === 'base-url') return displayBaseUrl(value);
  return value;
}

/**
 * The effective value of a key, from the resolved settings (flag, environment, file, default). A bad
 * value is shown as it was given (its problem is in `settings.problems`), never a failure.
 */
function effective(ctx: Context, key: ConfigKey): string | undefined {
  const { settings } = ctx;
  // The settings hold these two as given, flag included, whatever their problem.
  if (key === 'base-url') return settings.baseUrl;
  if (key === 'token') return settings.token;
  // settings.voice refuses as a whole while any voice key is bad (so that redact sends none), and
  // config get and list read no voice flag: a good voice key is then shown as it was given too.
  const badVoice = VOICE_SETTING_NAMES.some((name) => settings.problems[name] !== undefined);
  if (settings.problems[key] !== undefined || (badVoice && isVoiceKey(key))) {
    return settings.sources[key] === 'env' ? ctx.env[ENV_NAMES[key] ?? ''] : ctx.config.get(key);
  }
  switch (key) {
    case 'concurrency':
      return String(settings.concurrency);
    case 'out-dir':
      return settings.outDir ?? './redacted';
    default:
      return settings.voice[key];
  }
}

function warnProblems(ctx: Context, keys: readonly ConfigKey[]): void {
  for (const key of keys) {
    const problem = ctx.settings.problems[key];
    if (problem)
      ctx.log.warn(`${key}: ${problem}; commands that talk to the service refuse to run until it is fixed`);
  }
}

export async function runConfigSet(ctx: Context, [key = '', value = '']: string[]): Promise<number> {
  const name = parseConfigKey(key);
  let raw = value;
  if (value === '-' && name === 'token' && ctx.streams.stdin.isTTY) {
    // At a terminal, standard input would echo the token and wait for Ctrl-D with no word said.
    const typed = await promptSecret(ctx.streams, TOKEN_QUESTION);
    if (typed === undefined) return ExitCode.interrupted;
    raw = typed;
  } else if (value === '-') {
    raw = await readStdinValue(ctx.streams.stdin, name === 'token' ? 'a token' : `a ${name} value`);
  }
  const checked = checkConfigValue(name, raw, ctx.settings.allowInsecureHttp);
  await ctx.config.set(name, checked);
  ctx.log.info(`Set ${name} in ${ctx.config.path}`);
  if (name === 'base-url' && /\/api\/*$/i.test(new URL(checked).pathname)) {
    ctx.log.warn(
      'the base URL should not end in /api: vredact adds /api/… itself (set it to the part before /api)',
    );
  }
  return ExitCode.ok;
}

/** How a user stores a missing value: a token the way `login` checks it first, a script's way after. */
function howToSet(key: ConfigKey): string {
  if (key === 'token')
    return 'run `vredact login`, which checks a token with the service and stores it (in a script: `vredact config set token -` reads it from standard input)';
  return `set it with \`vredact config set ${key} …\``;
}

export async function runConfigGet(ctx: Context, [key = '']: string[]): Promise<number> {
  const name = parseConfigKey(key);
  const value = effective(ctx, name);
  const problem = ctx.settings.problems[name];
  // With --json too: a command that fails writes nothing on stdout, and says why on stderr.
  if (value === undefined) throw new CliError(`${name} is not set`, ExitCode.partial, howToSet(name));
  if (ctx.settings.json) {
    printJson(ctx.io, {
      key: name,
      value: shown(name, value),
      source: ctx.settings.sources[name] ?? 'default',
      ...(problem ? { problem } : {}),
    });
    return ExitCode.ok;
  }
  warnProblems(ctx, [name]);
  ctx.streams.stdout.write(`${displayText(shown(name, value))}\n`);
  return ExitCode.ok;
}

export async function runConfigUnset(ctx: Context, [key = '']: string[]): Promise<number> {
  const name = parseConfigKey(key);
  await ctx.config.delete(name);
  ctx.log.info(`Unset ${name}`);
  return ExitCode.ok;
}

export async function runConfigList(ctx: Context): Promise<number> {
  const rows = CONFIG_KEYS.map((key) => {
    const value = effective(ctx, key);
    const problem = ctx.settings.problems[key];
    return {
      key,
      value: value === undefined ? null : shown(key, value),
      // One word for the table and --json alike: "default" names a value, and no value has no source.
      source: value === undefined ? 'unset' : (ctx.settings.sources[key] ?? 'default'),
      ...(problem ? { problem } : {}),
    };
  });
  warnProblems(ctx, CONFIG_KEYS);
  if (ctx.settings.json) {
    printJson(ctx.io, rows);
    return ExitCode.ok;
  }
  await printTable(
    ctx.io,
    ['KEY', 'VALUE', 'SOURCE'],
    rows.map((row) => [row.key, displayText(row.value ?? ''), row.source]),
    // A long value (an output folder's path) wraps inside its cell on a narrow terminal.
    [{ column: 1, min: 12 }],
  );
  return ExitCode.ok;
}

export async function runConfigPath(ctx: Context): Promise<number> {
  const path = placedConfigPath(ctx.config);
  if (ctx.settings.json) printJson(ctx.io, { path });
  else ctx.streams.stdout.write(`${path}\n`);
  return ExitCode.ok;
}
