/**
 * zsh and fish completing as a person has them: loaded by the README's recipe, in a folder of odd
 * names. Skipped where the shell is not installed (CI machines have neither).
 */
import { spawnSync } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterEach, describe, expect, test } from 'vitest';
import { isolatedEnv, runCli, tempDirPerTest } from '../helpers/cli.js';
import { binDir, readmeBlock } from '../helpers/readme.js';
import { rowAfterTab } from '../helpers/tab-completion.js';
import { hasTmux, startTmux, type TmuxTerminal } from '../helpers/tmux.js';

const hasShell = (shell: string) => spawnSync(shell, ['-c', 'exit 0']).status === 0;
const work = tempDirPerTest('vredact-shells-');

/** The README's line that loads or installs completion for `shell`, whole (its comment too). */
async function readmeRecipe(shell: string): Promise<string> {
  const block = await readmeBlock('sh', 'vredact completion fish');
  const line = block.split('\n').find((text) => text.includes(`vredact completion ${shell}`));
  if (!line) throw new Error(`README: no line for ${shell}`);
  return line;
}

/**
 * A folder of names a person has: a space, a letter outside ASCII, folders, a file named as a
 * number; a home of its own; `vredact` on PATH as installed.
 */
async function setting(): Promise<{ here: string; env: NodeJS.ProcessEnv }> {
  const here = join(work.path, 'here');
  const home = join(work.path, 'home');
  await mkdir(join(here, 'my folder'), { recursive: true });
  await mkdir(join(here, 'results'));
  await mkdir(home);
  for (const name of ['a call.wav', 'ünï.wav', '1.wav']) await writeFile(join(here, name), '');
  const bin = await binDir(work.path);
  const env = isolatedEnv(join(work.path, 'config'), {
    HOME: home,
    PATH: `${bin}:${process.env.PATH ?? ''}`,
    LANG: 'C.UTF-8',
    LC_ALL: 'C.UTF-8',
    XDG_CONFIG_HOME: undefined,
    XDG_DATA_HOME: undefined,
    ZDOTDIR: undefined,
  });
  return { here, env };
}

describe('zsh at a terminal', () => {
  let term: TmuxTerminal | undefined;
  afterEach(async () => {
    await term?.kill();
    term = undefined;
  });

  const COMPINIT = 'autoload -Uz compinit && compinit';
  test.skipIf(!hasShell('zsh') || !hasTmux).each([
    ["the README's line after compinit in .zshrc, as a user has it", 'readme', COMPINIT],
    ["the README's line without compinit: the script runs it", 'readme', ''],
    // Autoloaded on the first Tab, the file only registered itself: that Tab offered nothing.
    ['saved as _vredact in a folder of $fpath, before compinit', 'fpath', COMPINIT],
  ])(
    '%s: commands, values after =, whole names with a space, folders only, nothing for an id',
    async (_, how, compinit) => {
      const { here, env } = await setting();
      const home = String(env.HOME);
      const zshrc = join(home, '.zshrc');
      let load = `${compinit}\n${await readmeRecipe('zsh')}`;
      if (how === 'fpath') {
        await mkdir(join(home, 'zfunc'));
        const script = await runCli(['completion', 'zsh'], { env });
        await writeFile(join(home, 'zfunc', '_vredact'), String(script.stdout));
        load = `fpath=(${join(home, 'zfunc')} $fpath)\n${compinit}`;
      }
      await writeFile(zshrc, `PS1='$ '\nbindkey -e\n${load}\n`);
      const shell = (term = await startTmux('exec zsh -f', { cwd: here, env, columns: 120 }));
      await shell.keys('-l', `source ${zshrc}`);
      await shell.keys('Enter');
      const afterTab = (line: string) => rowAfterTab(shell, line);
      expect(await afterTab('vredact jobs l')).toBe('$ vredact jobs list X');
      expect(await afterTab('vredact help jobs l')).toBe('$ vredact help jobs list X');
      // One word in zsh: the options were offered for it, and none begins with `--gender=`.
      expect(await afterTab('vredact redact --gender=o')).toBe('$ vredact redact --gender=opposite X');
      // compgen's words were split at the space: `a` and `call.wav`.
      expect(await afterTab('vredact redact a')).toBe('$ vredact redact a\\ call.wav X');
      expect(await afterTab('vredact redact ü')).toBe('$ vredact redact ünï.wav X');
      expect(await afterTab('vredact redact my')).toBe('$ vredact redact my\\ folder/X');
      // A folder with its slash, and only folders; zsh's bashcompinit has no compopt, and its
      // `-o default` offered every file where the reply was empty.
      expect(await afterTab('vredact redact -o r')).toBe('$ vredact redact -o results/X');
      expect(await afterTab('vredact redact --out-dir=r')).toBe('$ vredact redact --out-dir=results/X');
      for (const line of [
        'vredact redact -o a',
        'vredact download a',
        'vredact download job-1 a',
        'vredact jobs content a',
        'vredact redact -c 1',
        'vredact jobs zz',
      ]) {
        expect(await afterTab(line)).toBe(`$ ${line}X`);
      }
    },
  );
});

describe('fish', () => {
  /** What fish offers for `line` (the last word is being typed), after `setup`, in `here`. */
  async function offered(line: string, setup: string, here: string, env: NodeJS.ProcessEnv) {
    const result = await execa('fish', ['--no-config', '-c', `${setup}; complete -C '${line}'`], {
      cwd: here,
      env,
      extendEnv: false,
      reject: false,
    });
    expect(result.exitCode, String(result.stderr)).toBe(0);
    return String(result.stdout)
      .split('\n')
      .filter(Boolean)
      .map((row) => row.split('\t')[0]);
  }

  test.skipIf(!hasShell('fish'))(
    'loaded by `vredact completion fish | source`: the value of an option is no command; folders only for a folder',
    async () => {
      const { here, env } = await setting();
      const offers = (line: string) => offered(line, 'vredact completion fish | source', here, env);
      // `30` was taken for a command's name: nothing was offered.
      expect(await offers('vredact --timeout 30 jobs ')).toEqual(['content', 'create', 'list']);
      expect(await offers('vredact help --timeout 30 jobs ')).toEqual(['content', 'create', 'list']);
      // Every file was offered for a folder.
      expect(await offers('vredact redact -o ')).toEqual(['my folder/', 'results/']);
      expect(await offers('vredact redact --out-dir=')).toEqual([
        '--out-dir=my folder/',
        '--out-dir=results/',
      ]);
      expect(await offers('vredact download job-1 -o r')).toEqual(['results/']);
      expect(await offers('vredact sandbox --data-dir ')).toEqual(['my folder/', 'results/']);
      expect(await offers('vredact redact -o a')).toEqual([]);
      // As before: paths for redact's inputs and --files-from, nothing for an id.
      expect(await offers('vredact redact a')).toEqual(['a call.wav']);
      expect(await offers('vredact redact ü')).toEqual(['ünï.wav']);
      expect(await offers('vredact redact --files-from my')).toEqual(['my folder/']);
      expect(await offers('vredact redact --gender=o')).toEqual(['--gender=opposite']);
      expect(await offers('vredact download a')).toEqual([]);
      expect(await offers('vredact redact -c 1')).toEqual([]);
    },
  );

  test.skipIf(!hasShell('fish'))(
    "installed by the README's line in a new account, fish completes vredact in its next session",
    async () => {
      const { here, env } = await setting();
      // The line as a person runs it, in fish; ~/.config/fish/completions did not exist, and the
      // redirection failed.
      const install = await execa('fish', ['-c', await readmeRecipe('fish')], {
        cwd: here,
        env,
        extendEnv: false,
        reject: false,
      });
      expect(install.exitCode, String(install.stderr)).toBe(0);
      // A new session, with its configuration: the completions folder is read from there.
      const next = await execa('fish', ['-c', "complete -C 'vredact jobs '"], {
        cwd: here,
        env,
        extendEnv: false,
        reject: false,
      });
      expect(
        String(next.stdout)
          .split('\n')
          .filter(Boolean)
          .map((row) => row.split('\t')[0]),
      ).toEqual(['content', 'create', 'list']);
    },
  );
});
