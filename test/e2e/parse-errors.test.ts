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
      "option '--gender <gender>' argument 'x' is invalid. Allowed choices are same, opposite, random, f, m.",
      'see `vredact redact --help`',
    );
    await expectUsage(
      ['completion', 'tcsh'],
      "command-argument value 'tcsh' is invalid for argument 'shell'. Allowed choices are bash, zsh, fish.",
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
