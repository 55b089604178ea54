import { readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Command } from 'commander';
import { afterEach, describe, expect, test } from 'vitest';
import { buildProgram } from '../../src/cli/program.js';
import { BIN, isolatedEnv, REPO_ROOT, runCli, tempDirPerTest } from '../helpers/cli.js';
import { hasTmux, startTmux, type TmuxTerminal } from '../helpers/tmux.js';

const { version } = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string };

const work = tempDirPerTest('vredact-help-');
const env = () => isolatedEnv(join(work.path, 'config'));
/** Help is wrapped to the terminal's width: compare it as one line. */
const oneLine = (text: unknown) => String(text).replace(/\s+/g, ' ');

/**
 * An option's entry in a help text's lines, as one line: its flags, then its description, which may
 * start on the next line (long flags) and wraps onto lines indented to its column.
 */
function optionHelp(lines: readonly string[], flags: string): string {
  const first = lines.findIndex((line) => line.trim() === flags || line.trim().startsWith(`${flags} `));
  if (first < 0) return '(not shown)';
  const entry = [lines[first] ?? ''];
  for (const line of lines.slice(first + 1)) {
    // An option's own line is indented by two spaces; its description's, to the description column.
    if (!/^ {3,}\S/.test(line)) break;
    entry.push(line);
  }
  return oneLine(entry.join(' ')).trim();
}

describe('global flags on help and completion', () => {
  test.each([
    [['help', 'exit-codes'], ['--no-color']],
    [
      ['help', 'journal'],
      ['--json', '-q', '-v', '--timeout', '5', '--max-retries', '2'],
    ],
    [['help', 'jobs', 'list'], ['--quiet']],
    [['completion', 'bash'], ['--verbose']],
    [
      ['completion', 'zsh'],
      ['--no-color', '--timeout=7', '--max-retries=0'],
    ],
  ])(
    'vredact %j with %j: exit 0 and the same output, after the command and before it',
    async (words, flags) => {
      const plain = await runCli(words, { env: env() });
      expect(plain.exitCode).toBe(0);
      for (const args of [
        [...words, ...flags],
        [...flags, ...words],
      ]) {
        const result = await runCli(args, { env: env() });
        expect(result.exitCode).toBe(0);
        expect(result.stdout).toBe(plain.stdout);
        expect(result.stderr).toBe('');
      }
    },
  );
});

describe('help topics', () => {
  test.each([
    ['exit-codes', /^ {2}130 {2}interrupted/m],
    ['environment', /VREDACT_CONCURRENCY/],
    ['journal', /journal\.jsonl/],
  ])('vredact help %s prints the topic on stdout, exit 0', async (topic, expected) => {
    const result = await runCli(['help', topic], { env: env() });
    expect(result.exitCode).toBe(0);
    expect(String(result.stdout)).toMatch(expected);
    expect(result.stderr).toBe('');
  });

  test('exit-codes: 130 names what interrupts each command (SIGTERM ends jobs list with 143)', async () => {
    const text = oneLine((await runCli(['help', 'exit-codes'], { env: env() })).stdout);
    expect(text).toContain(
      // download ends on a closed stdout or a hangup as redact does: the topic named redact alone.
      '130 interrupted: Ctrl-C; for redact, download and sandbox SIGTERM too, and for redact and download a closed stdout or a hangup (its terminal closed);',
    );
  });

  test('the top-level help lists the topics; an unknown topic is a usage error naming them', async () => {
    const top = await runCli(['--help'], { env: env() });
    expect(top.exitCode).toBe(0);
    expect(String(top.stdout)).toContain('vredact help exit-codes');
    const unknown = await runCli(['help', 'nonsense'], { env: env() });
    expect(unknown.exitCode).toBe(2);
    expect(oneLine(unknown.stderr)).toMatch(
      /no help topic or command "nonsense"[^]*exit-codes, environment, journal/,
    );
  });

  test.each([
    ['exit-cods', 'exit-codes'],
    ['enviroment', 'environment'],
    ['jurnal', 'journal'],
    ['redcat', undefined],
  ])('vredact help %s suggests %s where a slip of a key makes one obvious', async (word, meant) => {
    // A misspelt topic that was not the beginning of one got the list and no suggestion.
    const unknown = await runCli(['help', word], { env: env() });
    expect(unknown.exitCode).toBe(2);
    const hint = oneLine(unknown.stderr).split('hint: ')[1] ?? '';
    expect(hint.split('topics: ')[0]).toBe(
      meant === undefined ? '' : `did you mean \`vredact help ${meant}\`? `,
    );
  });

  test('an unknown subcommand after help names the subcommands of the command named so far', async () => {
    // `help jobs lsit` listed the top-level commands, among which no "list" is to be found.
    const unknown = await runCli(['help', 'jobs', 'lsit'], { env: env() });
    expect(unknown.exitCode).toBe(2);
    expect(String(unknown.stderr)).toBe(
      'error: no help topic or command "jobs lsit"\nhint: the subcommands of vredact jobs: list, create, content',
    );
    const past = await runCli(['help', 'jobs', 'list', 'x'], { env: env() });
    expect(past.exitCode).toBe(2);
    expect(String(past.stderr)).toBe(
      'error: no help topic or command "jobs list x"\nhint: vredact jobs list has no subcommands: see `vredact help jobs list`',
    );
  });

  test('a topic or command cut short or in other letter case is suggested, never shown in its place', async () => {
    // `help env` and `help exit` listed the topics, without saying which one was meant.
    const cases: Array<[string[], string]> = [
      [['env'], '`vredact help environment`'],
      [['exit'], '`vredact help exit-codes`'],
      [['Redact'], '`vredact help redact`'],
      [['jobs', 'lis'], '`vredact help jobs list`'],
    ];
    for (const [words, meant] of cases) {
      const run = await runCli(['help', ...words], { env: env() });
      expect(run.exitCode).toBe(2);
      expect(String(run.stdout)).toBe('');
      const [error, hint, ...more] = String(run.stderr).split('\n');
      expect(error).toBe(`error: no help topic or command "${words.join(' ')}"`);
      expect(hint?.startsWith(`hint: did you mean ${meant}? `), hint).toBe(true);
      expect(more).toEqual([]);
    }
    // Two topics begin with "e": none is obvious, so none is suggested.
    const either = await runCli(['help', 'e'], { env: env() });
    expect(String(either.stderr)).not.toMatch(/did you mean/);
  });

  test('vredact help <command> is the command help, with examples', async () => {
    const viaHelp = await runCli(['help', 'jobs', 'list'], { env: env() });
    const viaFlag = await runCli(['jobs', 'list', '--help'], { env: env() });
    expect(viaHelp.exitCode).toBe(0);
    expect(viaHelp.stdout).toBe(viaFlag.stdout);
    expect(String(viaHelp.stdout)).toMatch(/Usage: vredact jobs list[^]*Examples:[^]*\$ vredact jobs list/);
  });

  test('the --help of every command ends with examples, help and the command groups too', async () => {
    const paths: string[][] = [];
    const walk = (command: Command, path: string[]) => {
      for (const sub of command.commands) {
        paths.push([...path, sub.name()]);
        walk(sub, [...path, sub.name()]);
      }
    };
    walk(buildProgram(), []);
    expect(paths).toContainEqual(['help']);
    for (const path of paths) {
      const result = await runCli([...path, '--help'], { env: env() });
      expect(result.exitCode).toBe(0);
      expect(String(result.stdout), path.join(' ')).toMatch(/\nExamples:\n(\s+[#$] .*\n)+$/);
    }
  });

  test('every option that takes a value shows its default, or "none", in the help of every command', async () => {
    const commands: Array<{ path: string[]; command: Command }> = [];
    const walk = (command: Command, path: string[]) => {
      commands.push({ path, command });
      for (const sub of command.commands) walk(sub, [...path, sub.name()]);
    };
    walk(buildProgram(), []);
    const missing: string[] = [];
    for (const { path, command } of commands) {
      const help = String((await runCli([...path, '--help'], { env: env() })).stdout).split('\n');
      for (const option of command.options.filter((o) => o.required || o.optional)) {
        const shown = optionHelp(help, option.flags);
        if (!/\bdefault: /.test(shown)) missing.push(`vredact ${path.join(' ')} ${option.flags}: ${shown}`);
      }
    }
    expect(missing).toEqual([]);
  });

  test('config path lists no network option; redact shows defaults, choices and environment variables', async () => {
    const path = oneLine((await runCli(['config', 'path', '--help'], { env: env() })).stdout);
    expect(path).not.toContain('--base-url');
    expect(path).not.toContain('--max-throttle-wait');
    const redact = oneLine((await runCli(['redact', '--help'], { env: env() })).stdout);
    expect(redact).toContain('(default: 4; env: VREDACT_CONCURRENCY; config: concurrency)');
    expect(redact).toContain('one of: mini, advanced');
    expect(redact).toContain('(default: none; env: VREDACT_BASE_URL; config: base-url)');
    expect(redact).toContain("(default: the service's)");
  });
});

test("sandbox's examples in the background send its request log away from the terminal", async () => {
  const help = String((await runCli(['sandbox', '--help'], { env: env() })).stdout);
  const background = help.split('\n').filter((line) => /^\s+\$ vredact sandbox .*&$/.test(line));
  expect(background).not.toEqual([]);
  // Its log came between the redraws of the progress line of the redact run typed next.
  for (const line of background) expect(line).toMatch(/ 2> \S+ &$| -q .*&$/);
});

describe('version and Node.js', () => {
  test('--version names vredact, Node.js and the platform', async () => {
    for (const flag of ['--version', '-V']) {
      const result = await runCli([flag], { env: env() });
      expect(result.exitCode).toBe(0);
      expect(String(result.stdout).trim()).toBe(
        `vredact ${version} (node ${process.version}, ${process.platform}-${process.arch})`,
      );
    }
  });

  test('on a Node.js older than 20.19 it exits 2 with one line naming the version it needs', async () => {
    // No Node.js 18 here: the version is faked before the bin's check reads it.
    const fake = join(work.path, 'node-18.mjs');
    await writeFile(fake, "Object.defineProperty(process.versions, 'node', { value: '18.20.0' });\n");
    const result = await runCli(['jobs', 'list'], { env: { ...env(), NODE_OPTIONS: `--import=${fake}` } });
    expect(result.exitCode).toBe(2);
    expect(result.stdout).toBe('');
    expect(String(result.stderr).trim()).toBe(
      'vredact needs Node.js 20.19 or newer; this is Node.js v18.20.0',
    );
  });
});

describe('global flags', () => {
  test('are taken before the command name too: vredact --json config list, vredact --timeout 5 jobs list', async () => {
    const json = await runCli(['--json', '--no-color', 'config', 'list'], { env: env() });
    expect(json.exitCode).toBe(0);
    const settings = JSON.parse(String(json.stdout)) as { key: string }[];
    expect(settings.map((s) => s.key)).toContain('out-dir');

    // Parsed as jobs list's own flags: the command runs and stops at the missing service URL.
    const network = await runCli(['-q', '--timeout', '5', '--max-retries=0', 'jobs', 'list'], { env: env() });
    expect(network.exitCode).toBe(2);
    expect(String(network.stderr)).toMatch(/^error: no service URL is set$/m);

    // Every command takes them (config path sends nothing: --timeout has no effect there), and a bad
    // word is still reported.
    const path = await runCli(['config', 'path'], { env: env() });
    const withTimeout = await runCli(['--timeout', '5', 'config', '-q', 'path'], { env: env() });
    expect(withTimeout.exitCode).toBe(0);
    expect(withTimeout.stdout).toBe(path.stdout);
    const noCommand = await runCli(['--json', 'nonsense'], { env: env() });
    expect(noCommand.exitCode).toBe(2);
    expect(String(noCommand.stderr)).toContain("unknown command 'nonsense'");
  });

  test('a bad value is refused by a command that sends nothing too, as by one that does', async () => {
    for (const words of [['status'], ['config', 'list'], ['jobs', 'list']]) {
      const result = await runCli([...words, '--timeout', '1e1'], { env: env() });
      expect(result.exitCode, words.join(' ')).toBe(2);
      expect(String(result.stderr), words.join(' ')).toMatch(/^error: --timeout /m);
    }
  });
});

describe('vredact, vredact jobs and vredact config without a subcommand', () => {
  test.each([[[]], [['jobs']], [['config']], [['--no-color', 'jobs']], [['-q']]])(
    'vredact %j prints its help on stdout and exits 0, as gh and gh repo do',
    async (words) => {
      const result = await runCli(words, { env: env() });
      expect(result.exitCode).toBe(0);
      expect(result.stderr).toBe('');
      const group = words.find((word) => !word.startsWith('-'));
      const usage = group
        ? `Usage: vredact ${group} [options] [command]\n`
        : 'Usage: vredact [options] [command]\n';
      expect(String(result.stdout).startsWith(usage)).toBe(true);
      const help = await runCli([...(group ? [group] : []), '--help'], { env: env() });
      expect(result.stdout).toBe(help.stdout);
    },
  );

  test('a word that names no subcommand is still a usage error, with a suggestion', async () => {
    for (const words of [['jobs', 'lst'], ['config', '--json', 'lst'], ['lst']]) {
      const result = await runCli(words, { env: env() });
      expect(result.exitCode, words.join(' ')).toBe(2);
      expect(result.stdout).toBe('');
      expect(String(result.stderr)).toContain("error: unknown command 'lst'");
    }
    const typo = await runCli(['jobs', 'lsit'], { env: env() });
    expect(String(typo.stderr)).toContain('hint: did you mean list? See `vredact jobs --help`');
  });
});

describe.skipIf(!hasTmux)('help at a narrow terminal', () => {
  let term: TmuxTerminal | undefined;
  afterEach(async () => {
    await term?.kill();
    term = undefined;
  });

  test('at 40 columns each description is under its option or command, wrapped between words', async () => {
    term = await startTmux(`node ${BIN} jobs --help`, { cwd: work.path, env: env(), columns: 40, rows: 60 });
    expect(await term.exited()).toBe(0);
    const rows = await term.rows();
    // Beside a padded column, the terminal cut them inside words: `machine-rea` / `dable JSON on stdout`.
    const under = (item: string) => rows.slice(rows.indexOf(item) + 1, rows.indexOf(item) + 3);
    expect(under('  --json')[0]).toBe('    machine-readable JSON on stdout');
    expect(under('  --timeout <seconds>')).toEqual([
      '    timeout of one request, in seconds',
      '    (default: 300)',
    ]);
    expect(under('  list [options]')).toEqual([
      '    list the newest jobs of your token,',
      '    newest first',
    ]);
  });

  test("at 40 columns the topics and the examples' comments wrap between words; a command to copy stays whole", async () => {
    term = await startTmux(`node ${BIN} sandbox --help`, {
      cwd: work.path,
      env: env(),
      columns: 40,
      rows: 80,
    });
    expect(await term.exited()).toBe(0);
    const rows = await term.rows();
    const at = rows.indexOf('  # serve in the background; the file');
    // The terminal cut them anywhere: `  # serve in the background; the file g` / `ets two export lines, …`.
    expect(rows.slice(at, at + 4)).toEqual([
      '  # serve in the background; the file',
      '  # gets two export lines, the log its',
      '  # own file',
      '  $ vredact sandbox --port 8787 > sandbo',
    ]);
    await term.kill();
    term = await startTmux(`node ${BIN} --help`, { cwd: work.path, env: env(), columns: 40, rows: 80 });
    expect(await term.exited()).toBe(0);
    const top = await term.rows();
    const topics = top.indexOf('Help topics:');
    expect(top.slice(topics + 1, topics + 4)).toEqual([
      '  vredact help exit-codes',
      '    what each exit code means, for',
      '    scripts and cron',
    ]);
    expect(top.slice(-2)).toEqual([
      'Run `vredact <command> --help` for a',
      "command's options and examples.",
    ]);
  });
});
