/** `vredact completion <shell>`: the script for each shell, made from the program it is given. */
import { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { buildProgram } from '../../../src/cli/program.js';
import { bashScript } from '../../../src/commands/completion/bash.js';
import { completionScript } from '../../../src/commands/completion/completion.js';
import { fishScript } from '../../../src/commands/completion/fish.js';
import { SHELLS } from '../../../src/commands/completion/shells.js';
import { describeTree } from '../../../src/commands/completion/tree.js';
import { zshScript } from '../../../src/commands/completion/zsh.js';
import { ExitCode, UsageError } from '../../../src/errors.js';

describe('completionScript', () => {
  const program = buildProgram();
  const tree = describeTree(program);

  it('gives each shell its own script, for the program by its name', () => {
    expect(completionScript(program, 'bash')).toBe(bashScript(tree, 'vredact'));
    expect(completionScript(program, 'zsh')).toBe(zshScript(tree, 'vredact'));
    expect(completionScript(program, 'fish')).toBe(fishScript(tree, 'vredact'));
  });

  it('has a script for every shell it lists', () => {
    for (const shell of SHELLS) expect(completionScript(program, shell).length).toBeGreaterThan(0);
  });

  it('follows the program it is given', () => {
    const other = new Command('other');
    other.command('go').option('--far', 'far away');
    const bash = completionScript(other, 'bash');
    expect(bash).toContain('-F _other_complete other');
    expect(bash).toContain('opts="--far -h --help"');
    expect(bash).not.toContain('redact');
  });

  it('refuses another shell with a usage error naming it and the choices', () => {
    let error: unknown;
    try {
      completionScript(program, 'tcsh');
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(UsageError);
    expect(error).toMatchObject({
      message: 'no completion for the shell "tcsh"',
      hint: 'choose one of bash, zsh, fish',
      exitCode: ExitCode.usage,
    });
  });
});
