import { spawnSync } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterEach, beforeAll, describe, expect, test } from 'vitest';
import { BIN, isolatedEnv, runCli, tempDirPerTest } from '../helpers/cli.js';
import { rowAfterTab } from '../helpers/tab-completion.js';
import { hasTmux, startTmux, type TmuxTerminal } from '../helpers/tmux.js';

/** The global flags, as every command offers them after its own options. */
const GLOBAL_FLAGS = [
  '--json',
  '-q',
  '--quiet',
  '-v',
  '--verbose',
  '--no-color',
  '--timeout',
  '--max-retries',
];

const work = tempDirPerTest('vredact-completion-');
const hasShell = (shell: string) => spawnSync(shell, ['-c', 'exit 0']).status === 0;

async function script(shell: string): Promise<string> {
  const result = await runCli(['completion', shell], { env: isolatedEnv(join(work.path, 'config')) });
  expect(result.exitCode).toBe(0);
  return String(result.stdout);
}

describe('bash', () => {
  let bash = '';
  beforeAll(async () => {
    // Generated once through the binary, as `source <(vredact completion bash)` would.
    const result = await execa('node', [BIN, 'completion', 'bash'], { reject: false });
    bash = String(result.stdout);
  });

  /** What bash offers after `words` (the last one is being typed), with the generated script loaded. */
  async function complete(...words: string[]): Promise<string[]> {
    const quoted = words.map((word) => `'${word}'`).join(' ');
    const result = await execa(
      'bash',
      [
        '--norc',
        '--noprofile',
        '-c',
        `eval "$VREDACT_COMPLETION"
COMP_WORDS=(vredact ${quoted}); COMP_CWORD=${words.length}
_vredact_complete
printf '%s\\n' "\${COMPREPLY[@]}"`,
      ],
      { env: { VREDACT_COMPLETION: bash }, cwd: work.path },
    );
    return String(result.stdout).split('\n').filter(Boolean);
  }

  test('vredact re completes to redact', async () => {
    expect(await complete('re')).toEqual(['redact']);
  });

  test('subcommands, options, allowed values and argument choices', async () => {
    expect(await complete('jobs', '')).toEqual(['list', 'create', 'content']);
    expect(await complete('redact', '--gen')).toEqual(['--gender']);
    expect(await complete('redact', '--gender', 'o')).toEqual(['opposite']);
    // The value of -o is skipped when finding where the command line is.
    expect(await complete('redact', '-o', 'out', '--mo')).toEqual(['--model']);
    expect(await complete('config', 'set', 'con')).toEqual(['concurrency']);
    expect(await complete('completion', 'f')).toEqual(['fish']);
    // Options of one command are not offered on another.
    expect(await complete('config', 'path', '--ba')).toEqual([]);
    expect(await complete('jobs', 'list', '--max-t')).toEqual(['--max-throttle-wait']);
    // `--gender=o`, split by bash at the `=` as it splits every line (COMP_WORDBREAKS): nothing was offered.
    expect(await complete('redact', '--gender', '=', 'o')).toEqual(['opposite']);
    expect(await complete('redact', '--gender', '=', '')).toEqual(['same', 'opposite', 'random', 'f', 'm']);
    expect(await complete('redact', '--gender', '=', 'o', '--mo')).toEqual(['--model']);
    expect(await complete('redact', '--model', '=', '--ag')).toEqual(['--age']);
  });

  test('vredact help offers the help topics and the commands, for its first word only', async () => {
    const commands = ['redact', 'status', 'download', 'jobs', 'login', 'logout', 'config', 'sandbox'];
    expect(await complete('help', '')).toEqual([
      'exit-codes',
      'environment',
      'journal',
      ...commands,
      'help',
      'completion',
    ]);
    expect(await complete('help', 'j')).toEqual(['journal', 'jobs']);
    expect(await complete('help', 'e')).toEqual(['exit-codes', 'environment']);
    expect(await complete('help', 'journal', '')).toEqual([]);
    // As for every command's allowed first argument: one word, not one per position.
    expect(await complete('config', 'set', 'concurrency', '')).toEqual([]);
    expect(await complete('completion', 'bash', '')).toEqual([]);
  });

  test("vredact help <command> offers that command's subcommands, as vredact <command> does", async () => {
    expect(await complete('help', 'jobs', '')).toEqual(['list', 'create', 'content']);
    expect(await complete('help', 'jobs', 'c')).toEqual(['create', 'content']);
    expect(await complete('help', 'config', '')).toEqual(['set', 'get', 'unset', 'list', 'path']);
    // Options before the command are skipped, as anywhere.
    expect(await complete('help', '-h', 'config', 'l')).toEqual(['list']);
    // Past a command without subcommands, or a word that names none, nothing more is offered:
    // `help` takes commands only (not `config set`'s keys, nor another topic).
    expect(await complete('help', 'jobs', 'list', '')).toEqual([]);
    expect(await complete('help', 'config', 'set', '')).toEqual([]);
    expect(await complete('help', 'redact', '')).toEqual([]);
    expect(await complete('help', 'nonsense', '')).toEqual([]);
    // help's own options: the global flags and --help.
    expect(await complete('help', 'jobs', '-')).toEqual([...GLOBAL_FLAGS, '-h', '--help']);
  });

  test('the options of the program itself are offered once each', async () => {
    // The global flags too: `vredact --json jobs list` takes them before the command's name.
    expect(await complete('-')).toEqual(['-V', '--version', ...GLOBAL_FLAGS, '-h', '--help']);
  });
});

describe('bash on a terminal', () => {
  test.skipIf(!hasShell('tmux'))(
    'typing vredact re and Tab in an interactive bash gives vredact redact; help jobs cr and Tab, help jobs create',
    async () => {
      const session = `vredact-completion-${process.pid}-${Date.now()}`;
      const script = join(work.path, 'completion.bash');
      await writeFile(script, String((await execa('node', [BIN, 'completion', 'bash'])).stdout));
      const tmux = (...args: string[]) => execa('tmux', ['-L', session, ...args], { reject: false });
      await tmux(
        'new-session',
        '-d',
        '-s',
        session,
        '-c',
        work.path,
        '-x',
        '120',
        '-y',
        '20',
        'bash --norc --noprofile',
      );
      try {
        await tmux('send-keys', '-t', session, `PS1='$ '; source ${script}; clear`, 'Enter');
        await tmux('send-keys', '-t', session, 'vredact re', 'Tab');
        let screen = '';
        for (let attempt = 0; attempt < 100 && !screen.includes('vredact redact'); attempt++) {
          await new Promise((resolve) => setTimeout(resolve, 100));
          screen = String((await tmux('capture-pane', '-p', '-t', session)).stdout);
        }
        expect(screen).toContain('$ vredact redact');
        // After help, the words name a command: its subcommands complete too.
        await tmux('send-keys', '-t', session, 'C-u', 'clear', 'Enter');
        await tmux('send-keys', '-t', session, 'vredact help jobs cr', 'Tab');
        for (let attempt = 0; attempt < 100 && !screen.includes('vredact help jobs create'); attempt++) {
          await new Promise((resolve) => setTimeout(resolve, 100));
          screen = String((await tmux('capture-pane', '-p', '-t', session)).stdout);
        }
        expect(screen).toContain('$ vredact help jobs create');
      } finally {
        await tmux('kill-server');
      }
    },
  );
});

describe('bash on a terminal: values that name a folder or a file', () => {
  let term: TmuxTerminal | undefined;
  afterEach(async () => {
    await term?.kill();
    term = undefined;
  });

  /** An interactive bash in `here`, on a terminal, with vredact's completion loaded. */
  async function bashWithCompletion(here: string): Promise<void> {
    const script = join(work.path, 'completion.bash');
    await writeFile(script, String((await execa('node', [BIN, 'completion', 'bash'])).stdout));
    // Held at once, so that afterEach ends it whatever fails next.
    const shell = (term = await startTmux(`PS1='$ ' exec bash --norc --noprofile -i`, {
      cwd: here,
      env: isolatedEnv(join(work.path, 'config')),
      columns: 120,
    }));
    await shell.keys('-l', `source ${script}`);
    await shell.keys('Enter');
  }

  /** The prompt's row after typing `line`, a Tab, then X: what the Tab put in, if anything, before X. */
  function afterTab(line: string): Promise<string> {
    if (!term) throw new Error('no terminal');
    return rowAfterTab(term, line);
  }

  test.skipIf(!hasTmux)(
    '-o, --out-dir= and --data-dir complete folders only, never a file; --files-from completes files',
    async () => {
      const here = join(work.path, 'here');
      await mkdir(join(here, 'results'), { recursive: true });
      await writeFile(join(here, 'a.wav'), '');
      await writeFile(join(here, 'readme.txt'), '');
      await bashWithCompletion(here);
      // No folder begins with a: nothing, where bash's own file completion gave a.wav.
      expect(await afterTab('vredact redact -o a')).toBe('$ vredact redact -o aX');
      expect(await afterTab('vredact download job-1 --out-dir a')).toBe(
        '$ vredact download job-1 --out-dir aX',
      );
      expect(await afterTab('vredact sandbox --data-dir a')).toBe('$ vredact sandbox --data-dir aX');
      // The folder, as a folder (a slash, to go on into it), and not readme.txt beside it.
      expect(await afterTab('vredact redact --out-dir=r')).toBe('$ vredact redact --out-dir=results/X');
      expect(await afterTab('vredact redact --files-from a')).toBe('$ vredact redact --files-from a.wav X');
    },
  );

  test.skipIf(!hasTmux)(
    "redact's inputs and --files-from: a name with a space completes whole, a folder with its slash",
    async () => {
      const here = join(work.path, 'here');
      await mkdir(join(here, 'my folder'), { recursive: true });
      await writeFile(join(here, 'a call.wav'), '');
      await bashWithCompletion(here);
      // compgen's words were split at the space: `a` and `call.wav`, and the Tab put nothing in.
      expect(await afterTab('vredact redact a')).toBe('$ vredact redact a\\ call.wav X');
      expect(await afterTab('vredact redact --files-from a')).toBe(
        '$ vredact redact --files-from a\\ call.wav X',
      );
      expect(await afterTab('vredact redact my')).toBe('$ vredact redact my\\ folder/X');
    },
  );

  test.skipIf(!hasTmux)(
    'a value that is no path (a number, a duration, a port, a shard) is offered nothing, not the files here',
    async () => {
      const here = join(work.path, 'here');
      await mkdir(here, { recursive: true });
      for (const name of ['1.wav', '30s.wav', '8080.wav']) await writeFile(join(here, name), '');
      await bashWithCompletion(here);
      // Each of these gave the file that begins with what was typed (`-c 1<Tab>` gave `-c 1.wav`).
      for (const line of [
        'vredact redact -c 1',
        'vredact download job-1 --concurrency=1',
        'vredact redact --wait-timeout 3',
        'vredact redact --shard 1',
        'vredact jobs list --timeout 3',
        'vredact status --max-retries 1',
        'vredact sandbox --port 8',
      ]) {
        expect(await afterTab(line)).toBe(`$ ${line}X`);
      }
      // A value with a fixed set still offers it.
      expect(await afterTab('vredact redact --gender o')).toBe('$ vredact redact --gender opposite X');
    },
  );

  test.skipIf(!hasTmux)(
    'a subcommand begun that names none is offered nothing, not the files here',
    async () => {
      const here = join(work.path, 'here');
      await mkdir(here, { recursive: true });
      await writeFile(join(here, 'zz.wav'), '');
      await bashWithCompletion(here);
      // `jobs zz<Tab>` gave zz.wav, where `vredact zz<Tab>` gave nothing.
      for (const line of ['vredact zz', 'vredact jobs zz', 'vredact config zz', 'vredact help jobs zz']) {
        expect(await afterTab(line)).toBe(`$ ${line}X`);
      }
      expect(await afterTab('vredact jobs l')).toBe('$ vredact jobs list X');
    },
  );

  test.skipIf(!hasTmux)(
    "a positional that is no path (a job id, a file name on the service, a setting's value) is offered nothing; redact's inputs are paths",
    async () => {
      const here = join(work.path, 'here');
      await mkdir(here, { recursive: true });
      await writeFile(join(here, 'a.wav'), '');
      await bashWithCompletion(here);
      // Each of these gave a.wav, a file of this machine that the service knows nothing of.
      for (const line of [
        'vredact download a',
        'vredact download job-1 a',
        'vredact download job-1 b.wav a',
        'vredact jobs content a',
        'vredact config set concurrency a',
        'vredact jobs list a',
      ]) {
        expect(await afterTab(line)).toBe(`$ ${line}X`);
      }
      expect(await afterTab('vredact redact a')).toBe('$ vredact redact a.wav X');
      expect(await afterTab('vredact redact b.wav a')).toBe('$ vredact redact b.wav a.wav X');
    },
  );
});

describe('zsh and fish', () => {
  test("zsh: registers its own function, with bashcompinit's compgen; syntax-checked when zsh is installed", async () => {
    const zsh = await script('zsh');
    expect(zsh).toMatch(/^#compdef vredact/);
    expect(zsh).toContain('bashcompinit');
    // Registered as zsh's own completion, not through bashcompinit's `complete -o default`.
    expect(zsh).toContain('compdef _vredact_complete vredact');
    if (hasShell('zsh')) {
      const check = await execa('zsh', ['-n'], { input: zsh, reject: false });
      expect(check.exitCode, String(check.stderr)).toBe(0);
    }
  });

  test('fish: one complete line per subcommand and option; syntax-checked when fish is installed', async () => {
    const fish = await script('fish');
    expect(fish).toContain("complete -c vredact -n '__vredact_at exact' -a 'redact'");
    // -x: a value of --gender is one of its choices, never a file name (which redact's inputs are).
    expect(fish).toContain(
      "complete -c vredact -n '__vredact_at prefix redact' -l gender -x -a 'same opposite random f m'",
    );
    // A folder: fish's folders only, not -F's files.
    expect(fish).toContain(
      "complete -c vredact -n '__vredact_at prefix redact' -s o -l out-dir -x -a '(__fish_complete_directories",
    );
    // Only redact's positionals are paths: a job id or a file name on the service is not.
    expect(fish.match(/^complete .* -F$/gm)).toEqual([
      "complete -c vredact -n '__vredact_at prefix redact' -F",
    ]);
    expect(fish.match(/-l version /g)).toHaveLength(1);
    expect(fish).toContain("complete -c vredact -n '__vredact_at exact jobs' -a 'list'");
    // The first word after help: a topic or a command (exact: none typed after help yet).
    expect(fish).toContain(
      "complete -c vredact -n '__vredact_at exact help' -a 'exit-codes environment journal redact status",
    );
    // After `help jobs`: the subcommands of jobs, as after `jobs`.
    expect(fish).toContain("complete -c vredact -n '__vredact_at exact help jobs' -a 'list'");
    expect(fish).toContain("complete -c vredact -n '__vredact_at exact help config' -a 'unset'");
    if (hasShell('fish')) {
      // From a file: fish cannot read a script from the socket that Node gives a child as its stdin.
      const script = join(work.path, 'vredact.fish');
      await writeFile(script, fish);
      const check = await execa('fish', ['--no-execute', script], { reject: false });
      expect(check.exitCode, String(check.stderr)).toBe(0);
      // What fish offers after `vredact redact --gender `, in a folder that holds a file.
      await writeFile(join(work.path, 'call.wav'), '');
      const offered = await execa(
        'fish',
        ['--no-config', '-c', `source ${script}; complete -C 'vredact redact --gender '`],
        { cwd: work.path, reject: false },
      );
      expect(
        String(offered.stdout)
          .split('\n')
          .map((line) => line.split('\t')[0]),
      ).toEqual(['f', 'm', 'opposite', 'random', 'same']);
      const help = await execa(
        'fish',
        ['--no-config', '-c', `source ${script}; complete -C 'vredact help j'`],
        {
          cwd: work.path,
          reject: false,
        },
      );
      expect(
        String(help.stdout)
          .split('\n')
          .map((line) => line.split('\t')[0]),
      ).toEqual(['jobs', 'journal']);
      const helpJobs = await execa(
        'fish',
        ['--no-config', '-c', `source ${script}; complete -C 'vredact help jobs '`],
        { cwd: work.path, reject: false },
      );
      expect(
        String(helpJobs.stdout)
          .split('\n')
          .map((line) => line.split('\t')[0]),
      ).toEqual(['content', 'create', 'list']);
    }
  });

  test('an unknown shell is a usage error', async () => {
    const result = await runCli(['completion', 'tcsh'], { env: isolatedEnv(join(work.path, 'config')) });
    expect(result.exitCode).toBe(2);
    expect(String(result.stderr)).toContain('tcsh');
  });
});
