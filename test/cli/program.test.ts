import { Command } from 'commander';
import { describe, expect, test } from 'vitest';
import { completeCommandTree } from '../../src/cli/every-command.js';
import { buildProgram } from '../../src/cli/program.js';

/** Every command of the tree that runs something (no subcommands), by its path (`jobs list`). */
function leaves(command: Command, path: string[] = []): Map<string, Command> {
  const found = new Map<string, Command>();
  for (const sub of command.commands) {
    const subPath = [...path, sub.name()];
    if (sub.commands.length === 0) found.set(subPath.join(' '), sub);
    for (const [key, value] of leaves(sub, subPath)) found.set(key, value);
  }
  return found;
}

const longNames = (command: Command) => command.options.map((option) => option.long);

/** The full help of a command as a user sees it, including the text added after the options. */
function helpOf(command: Command): string {
  let text = '';
  command.configureOutput({ writeOut: (chunk) => (text += chunk), writeErr: (chunk) => (text += chunk) });
  command.outputHelp();
  // Help is wrapped to the terminal's width: compare it as one line.
  return text.replace(/\s+/g, ' ');
}

/** Parses a command line with the leaf's action replaced, and returns the flags it would receive. */
async function flagsOf(argv: string[]): Promise<Record<string, unknown>> {
  const program = buildProgram();
  let flags: Record<string, unknown> | undefined;
  for (const command of leaves(program).values()) {
    command.configureOutput({ writeErr: () => {} });
    command.action((...received: unknown[]) => {
      flags = (received[received.length - 1] as Command).optsWithGlobals();
    });
  }
  await program.parseAsync(['node', 'vredact', ...argv]);
  if (!flags) throw new Error(`no command ran for ${argv.join(' ')}`);
  return flags;
}

/** Every command of the tree by its path, the program (`''`) and the groups (`jobs`) included. */
function everyCommand(command: Command, path: string[] = []): Map<string, Command> {
  const found = new Map([[path.join(' '), command]]);
  for (const sub of command.commands) {
    for (const [key, value] of everyCommand(sub, [...path, sub.name()])) found.set(key, value);
  }
  return found;
}

const NETWORK = ['--base-url', '--token', '--max-throttle-wait', '--allow-insecure-http'];
const GLOBAL = ['--json', '--quiet', '--verbose', '--no-color', '--timeout', '--max-retries'];
const TALKS_TO_SERVICE = ['redact', 'download', 'jobs list', 'jobs create', 'jobs content', 'login'];

describe('the command tree', () => {
  const program = buildProgram();
  const all = leaves(program);

  test('network options only on the commands that talk to the service', () => {
    for (const [path, command] of all) {
      const has = NETWORK.filter((name) => longNames(command).includes(name));
      if (TALKS_TO_SERVICE.includes(path)) expect(has, path).toEqual(NETWORK);
      else if (!['config get', 'config list', 'config set', 'sandbox'].includes(path))
        expect(has, path).toEqual([]);
    }
    // The sandbox's --token is the list of tokens it accepts, not the client's.
    expect(longNames(all.get('sandbox') as Command)).not.toContain('--base-url');
    // get and list show the effective URL and token, so those two flags (only) apply there.
    expect(longNames(all.get('config list') as Command)).not.toContain('--max-throttle-wait');
    expect(longNames(all.get('config set') as Command)).toContain('--allow-insecure-http');
  });

  test("the six global flags on every command, the program's groups and the program too, once each", () => {
    const commands = everyCommand(program);
    expect([...commands.keys()]).toEqual(expect.arrayContaining(['', 'jobs', 'config', 'sandbox', 'help']));
    for (const [path, command] of commands) {
      expect(
        longNames(command)
          .filter((name) => GLOBAL.includes(name as string))
          .sort(),
        path,
      ).toEqual([...GLOBAL].sort());
    }
    // The sandbox says what -q and -v mean for a server.
    const sandboxQuiet = (all.get('sandbox') as Command).options.find((option) => option.long === '--quiet');
    expect(sandboxQuiet?.description).toBe('do not log requests');
  });

  test('a command added to the tree gets the global flags from the tree, not from its own declaration', () => {
    const tree = new Command('tool');
    tree.command('group').command('new-thing').option('--own', 'its own option');
    completeCommandTree(tree);
    const added = tree.commands[0]?.commands[0] as Command;
    expect(longNames(added)).toEqual(['--own', ...GLOBAL]);
  });

  test('every command has examples, and options show default, choices, env and config key', () => {
    for (const [path, command] of all) {
      if (path === 'help') continue;
      expect(helpOf(command), path).toContain('Examples:');
    }
    const redact = helpOf(all.get('redact') as Command);
    expect(redact).toMatch(/--concurrency <n>[^]*default: 4; env: VREDACT_CONCURRENCY; config: concurrency/);
    expect(redact).toMatch(/--gender <gender>[^]*one of: same, opposite, random, f, m/);
    expect(redact).toMatch(/--shard <i\/n>[^]*env: VREDACT_SHARD/);
    expect(redact).toMatch(/--duration-tolerance[^]*default: max\(2s,5%\)/);
    expect(redact).toMatch(/--min-age <duration>[^]*default: 0, off/);
    expect(redact).toContain('$ vredact redact /srv/rec --min-age 10m');
    expect(redact).toMatch(/--max-throttle-wait[^]*default: 30m/);
    expect(redact).toMatch(/--base-url <url>[^]*env: VREDACT_BASE_URL/);
    expect(helpOf(all.get('config set') as Command)).toMatch(/one of: base-url, token, concurrency/);
    expect(helpOf(all.get('sandbox') as Command)).toMatch(/--rate-limit <n\/period>/);
  });

  test('every positional argument with a fixed set of values refuses another in the one shape', async () => {
    const withChoices = [...everyCommand(program)].flatMap(([path, command]) =>
      command.registeredArguments.flatMap((argument, at) =>
        argument.argChoices ? [{ path, at, argument }] : [],
      ),
    );
    expect(withChoices.map(({ path }) => path).sort()).toEqual([
      'completion',
      'config get',
      'config set',
      'config unset',
    ]);
    for (const { path, at, argument } of withChoices) {
      const command = everyCommand(program).get(path) as Command;
      const values = command.registeredArguments.map((other, index) =>
        index === at ? 'NoSuchValue' : (other.argChoices?.[0] ?? 'x'),
      );
      const refusal = buildProgram().parseAsync(['node', 'vredact', ...path.split(' '), ...values]);
      await expect(refusal, path).rejects.toMatchObject({
        message: `<${argument.name()}> must be one of ${argument.argChoices?.join(', ')} (got "NoSuchValue")`,
        hint: `see \`vredact ${path} --help\``,
        exitCode: 2,
      });
    }
  });

  test('status is declared with -o, --json and --manifest', () => {
    expect(longNames(all.get('status') as Command)).toEqual(
      expect.arrayContaining(['--out-dir', '--json', '--manifest']),
    );
  });

  test("status's -o names the out-dir setting it falls back on, as redact's does", () => {
    for (const path of ['status', 'redact']) {
      expect(helpOf(all.get(path) as Command), path).toMatch(
        /-o, --out-dir <dir> [^(]*\(default: \.\/redacted; config: out-dir\)/,
      );
    }
  });
});

describe('what the commands receive', () => {
  test('settings-backed options are left unset, so settings sees the environment and config file', async () => {
    const flags = await flagsOf(['redact', 'a.wav']);
    for (const name of [
      'concurrency',
      'outDir',
      'baseUrl',
      'token',
      'timeout',
      'maxRetries',
      'shard',
      'gender',
    ]) {
      expect(flags[name], name).toBeUndefined();
    }
    // Auto: neither --progress nor --no-progress given.
    expect(flags.progress).toBeUndefined();
    expect(flags.maxThrottleWait).toBeUndefined();
    expect(flags.durationTolerance).toBeUndefined();
    expect(flags.wait).toBe(true);
  });

  test('the new options arrive camelCased', async () => {
    expect(
      await flagsOf([
        'redact',
        'a.wav',
        '--no-progress',
        '--stats',
        '30s',
        '--duration-tolerance',
        '10%',
        '--max-throttle-wait',
        '5m',
        '-c',
        '8',
      ]),
    ).toMatchObject({
      progress: false,
      stats: '30s',
      durationTolerance: '10%',
      maxThrottleWait: '5m',
      concurrency: '8',
    });
    expect(await flagsOf(['download', 'job1', '--progress'])).toMatchObject({ progress: true });
    expect(await flagsOf(['status', '-o', 'out', '--manifest'])).toMatchObject({
      outDir: 'out',
      manifest: true,
    });
    expect(await flagsOf(['sandbox', '--rate-limit', '10/1s'])).toMatchObject({
      rateLimit: '10/1s',
      port: '8787',
    });
  });

  test('a target voice is passed as typed: settings checks it, as it checks a stored one', async () => {
    // Refused by settings with the nearest allowed value (src/settings/voice.ts), not by commander.
    expect(await flagsOf(['redact', 'a.wav', '--gender', 'F'])).toMatchObject({ gender: 'F' });
  });
});
