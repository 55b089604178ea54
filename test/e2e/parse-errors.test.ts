import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { listFiles } from '../helpers/e2e.js';
import { isolatedEnv, runCli, tempDirPerTest } from '../helpers/cli.js';

const work = tempDirPerTest('vredact-parse-errors-');
const run = (words: string[]) =>
  runCli(words, { env: isolatedEnv(join(work.path, 'config')), cwd: work.path });

/** What every parse error prints, as every other error of vredact: one `error:` line, one `hint:` line. */
async function expectUsage(words: string[], error: string, hint: string): Promise<void> {
  const result = await run(words);
  expect(result.exitCode, words.join(' ')).toBe(2);
  expect(result.stdout, words.join(' ')).toBe('');
  expect(String(result.stderr), words.join(' ')).toBe(`error: ${error}\nhint: ${hint}`);
}

describe("commander's parse errors go through the one error printer", () => {
  test('an unknown option: the suggestion and the help of the command it was given to', async () => {
    await expectUsage(
      ['redact', 'in', '--ovewrite'],
      "unknown option '--ovewrite'",
      'did you mean --overwrite? See `vredact redact --help`',
    );
    await expectUsage(['status', '--bogus'], "unknown option '--bogus'", 'see `vredact status --help`');
    await expectUsage(['--bogus'], "unknown option '--bogus'", 'see `vredact --help`');
  });

  test('an unknown command or subcommand names the help of the group', async () => {
    await expectUsage(['reddact'], "unknown command 'reddact'", 'did you mean redact? See `vredact --help`');
    await expectUsage(
      ['jobs', 'lsit'],
      "unknown command 'lsit'",
      'did you mean list? See `vredact jobs --help`',
    );
  });

  test('a missing argument, a missing value and a value outside the allowed ones', async () => {
    await expectUsage(
      ['jobs', 'content'],
      "missing required argument 'jobId'",
      'see `vredact jobs content --help`',
    );
    await expectUsage(
      ['redact', 'in', '--concurrency'],
      "option '-c, --concurrency <n>' argument missing",
      'see `vredact redact --help`',
    );
    await expectUsage(
      ['redact', 'in', '--gender', 'x'],
      '--gender must be one of same, opposite, random, f, m (got "x")',
      'see `vredact redact --help`',
    );
    await expectUsage(
      ['completion', 'tcsh'],
      '<shell> must be one of bash, zsh, fish (got "tcsh")',
      'see `vredact completion --help`',
    );
  });

  test('with --json, as every usage error: nothing on stdout, the same two lines on stderr', async () => {
    await expectUsage(
      ['--json', 'redact', 'in', '--ovewrite'],
      "unknown option '--ovewrite'",
      'did you mean --overwrite? See `vredact redact --help`',
    );
    await expectUsage(
      ['jobs', '--json', 'lsit'],
      "unknown command 'lsit'",
      'did you mean list? See `vredact jobs --help`',
    );
  });
});

describe('a target voice outside its values', () => {
  // The allowed values, then the nearest where a prefix or letter case makes one obvious, and the
  // help: `--gender F` named no `f`, and `config set gender F` had no hint line at all.
  test.each([
    [['redact', 'in', '--gender', 'F'], 'gender', 'same, opposite, random, f, m', 'F', 'f', 'redact'],
    [
      ['redact', 'in', '--gender', 'OPP'],
      'gender',
      'same, opposite, random, f, m',
      'OPP',
      'opposite',
      'redact',
    ],
    [['redact', 'in', '--model', 'Advanced'], 'model', 'mini, advanced', 'Advanced', 'advanced', 'redact'],
    [
      ['redact', 'in', '--age', 'senior'],
      'age',
      'young-adult, middle-aged-adult, senior-adult, same, random',
      'senior',
      'senior-adult',
      'redact',
    ],
    [['config', 'set', 'emotion', 'Sad'], 'emotion', 'happy, default, sad', 'Sad', 'sad', 'config set'],
  ])('vredact %j', async (words, name, allowed, given, nearest, command) => {
    const what = words[0] === 'config' ? name : `--${name}`;
    await expectUsage(
      words,
      `${what} must be one of ${allowed} (got "${given}")`,
      `the nearest allowed value is ${nearest}; see \`vredact ${command} --help\``,
    );
  });

  test('no nearest one where none is obvious: the allowed values and the help', async () => {
    await expectUsage(
      ['redact', 'in', '--age', 's'],
      '--age must be one of young-adult, middle-aged-adult, senior-adult, same, random (got "s")',
      'see `vredact redact --help`',
    );
    await expectUsage(
      ['config', 'set', 'language', 'nl'],
      'language must be one of en, fr, it, es, de (got "nl")',
      'see `vredact config set --help`',
    );
  });
});

describe('a positional argument outside its values', () => {
  // In the shape of an option's value refused, with the one meant where letter case or a beginning
  // makes it obvious: they printed commander's "command-argument value 'Tcsh' is invalid for argument
  // 'shell'. Allowed choices are …", and no nearest value.
  const KEYS = 'base-url, token, concurrency, out-dir, age, gender, language, model, emotion';
  test.each([
    [['completion', 'Bash'], '<shell>', 'bash, zsh, fish', 'Bash', 'bash', 'completion'],
    [['completion', 'Tcsh'], '<shell>', 'bash, zsh, fish', 'Tcsh', undefined, 'completion'],
    [['config', 'get', 'Token'], '<key>', KEYS, 'Token', 'token', 'config get'],
    [['config', 'set', 'Concurrency', '3'], '<key>', KEYS, 'Concurrency', 'concurrency', 'config set'],
    [['config', 'unset', 'base'], '<key>', KEYS, 'base', 'base-url', 'config unset'],
    [['config', 'get', 'colour'], '<key>', KEYS, 'colour', undefined, 'config get'],
  ])('vredact %j', async (words, what, allowed, given, nearest, command) => {
    const help = `see \`vredact ${command} --help\``;
    await expectUsage(
      words,
      `${what} must be one of ${allowed} (got "${given}")`,
      nearest === undefined ? help : `the nearest allowed value is ${nearest}; ${help}`,
    );
  });

  test('the value given is escaped before the terminal sees it', async () => {
    await expectUsage(
      ['completion', '\x1b[2Jz\r'],
      '<shell> must be one of bash, zsh, fish (got "\\x1b[2Jz\\r")',
      'see `vredact completion --help`',
    );
  });
});

describe('a numeric value out of range or not a number', () => {
  const help = (command: string) => `see \`vredact ${command} --help\``;
  const nearest = (value: string, command: string) =>
    `the nearest allowed value is ${value}; ${help(command)}`;
  // Each: the option, the value given and what is allowed, then what to do, exit 2 (they had no hint).
  test.each([
    [
      ['redact', 'in', '-c', '0'],
      '-c, --concurrency must be a whole number from 1 to 64 (got "0")',
      nearest('1', 'redact'),
    ],
    [
      ['redact', 'in', '-c', '1000'],
      '-c, --concurrency must be a whole number from 1 to 64 (got "1000")',
      nearest('64', 'redact'),
    ],
    [
      ['download', 'job-1', '--concurrency', 'many'],
      '-c, --concurrency must be a whole number from 1 to 64 (got "many")',
      help('download'),
    ],
    [
      ['jobs', 'list', '--limit', '0'],
      '--limit must be a whole number from 1 to 1000000 (got "0")',
      nearest('1', 'jobs list'),
    ],
    [
      ['jobs', 'list', '--max-retries', '-1'],
      '--max-retries must be a whole number from 0 to 20 (got "-1")',
      nearest('0', 'jobs list'),
    ],
    [
      ['status', '--max-retries', '21'],
      '--max-retries must be a whole number from 0 to 20 (got "21")',
      nearest('20', 'status'),
    ],
    [
      ['jobs', 'list', '--timeout', 'soon'],
      '--timeout must be a positive number of seconds, in digits (like 30 or 0.5) (got "soon")',
      help('jobs list'),
    ],
    [
      ['jobs', 'list', '--max-throttle-wait', '8d'],
      '--max-throttle-wait must be a duration from 0 to 7d, like 30m, 90s or 2h (got "8d")',
      nearest('7d', 'jobs list'),
    ],
    [
      ['redact', 'in', '--wait-timeout', 'later'],
      '--wait-timeout must be a duration like 90s, 30m, 2h or plain seconds (got "later")',
      help('redact'),
    ],
    [
      ['redact', 'in', '--max-size', '0'],
      '--max-size must be a size of at least 1 byte, like 10485760, 10MiB or 500k (got "0")',
      help('redact'),
    ],
    [
      ['redact', 'in', '--max-duration', '0'],
      '--max-duration must be a number of seconds above 0, like 3600 or 60m (got "0")',
      help('redact'),
    ],
    [
      ['redact', 'in', '--stats', '0'],
      '--stats must be an interval of at least 0.1s, such as 30s, 5m or 60 (got "0")',
      help('redact'),
    ],
    [
      ['redact', 'in', '--shard', '3/2'],
      '--shard must look like i/n with 1 ≤ i ≤ n, e.g. 2/3 (got "3/2")',
      help('redact'),
    ],
    [
      ['sandbox', '--port', '70000'],
      '--port must be a port number from 0 to 65535 (got "70000")',
      nearest('65535', 'sandbox'),
    ],
    [
      ['sandbox', '--fail-rate', '2'],
      '--fail-rate must be a number from 0 to 1 (got "2")',
      nearest('1', 'sandbox'),
    ],
    [['sandbox', '--speed', '0'], '--speed must be a number above 0 (got "0")', help('sandbox')],
    [['sandbox', '--latency', 'x'], '--latency must be 0 or more milliseconds (got "x")', help('sandbox')],
    // Digits only, as every number typed: `--port 1e3` listened on 1000, `--port 0x50` on 80.
    [
      ['sandbox', '--port', '1e3'],
      '--port must be a port number from 0 to 65535 (got "1e3")',
      help('sandbox'),
    ],
    [['sandbox', '--seed', '0x10'], '--seed must be a whole number, 0 or more (got "0x10")', help('sandbox')],
    [['sandbox', '--speed', '1e2'], '--speed must be a number above 0 (got "1e2")', help('sandbox')],
  ])('vredact %j', async (words, error, hint) => {
    await expectUsage(words, error, hint);
  });
});

describe('an option cut short', () => {
  test('is suggested when it begins one long option of the command, and is not taken', async () => {
    await expectUsage(
      ['redact', 'in', '--out', 'results'],
      "unknown option '--out'",
      'did you mean --out-dir? See `vredact redact --help`',
    );
    await expectUsage(
      ['redact', 'in', '--out=results'],
      "unknown option '--out=results'",
      'did you mean --out-dir? See `vredact redact --help`',
    );
    await expectUsage(
      ['download', 'job-1', '--out', 'results'],
      "unknown option '--out'",
      'did you mean --out-dir? See `vredact download --help`',
    );
    // Nothing was done with it: no folder of that name, no output folder.
    expect(await listFiles(work.path)).toEqual([]);
  });

  test('is not suggested when it begins several (--o: --out-dir and --overwrite)', async () => {
    await expectUsage(['redact', 'in', '--o'], "unknown option '--o'", 'see `vredact redact --help`');
  });
});
