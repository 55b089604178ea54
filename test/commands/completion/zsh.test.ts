/** The zsh completion script: the bash function, loaded through zsh's bashcompinit. */
import { spawnSync } from 'node:child_process';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { buildProgram } from '../../../src/cli/program.js';
import { bashScript } from '../../../src/commands/completion/bash.js';
import { describeTree } from '../../../src/commands/completion/tree.js';
import { zshScript } from '../../../src/commands/completion/zsh.js';

const hasZsh = spawnSync('zsh', ['-c', 'exit 0']).status === 0;
const tree = describeTree(buildProgram());

describe('zshScript', () => {
  it('is a #compdef file that loads compinit and bashcompinit before the bash function', () => {
    const script = zshScript(tree, 'vredact');
    const lines = script.split('\n');
    expect(lines[0]).toBe('#compdef vredact');
    const compinit = lines.findIndex((line) => line.includes('compinit') && !line.includes('bashcompinit'));
    const bashcompinit = lines.findIndex((line) => line.includes('bashcompinit && bashcompinit'));
    expect(compinit).toBeGreaterThan(0);
    expect(bashcompinit).toBeGreaterThan(compinit);
    // The very same function as bash gets, whole, so the two shells cannot drift apart.
    const bash = bashScript(tree, 'vredact');
    expect(script.endsWith(bash)).toBe(true);
    expect(script.indexOf(bash)).toBeGreaterThan(script.indexOf('bashcompinit && bashcompinit'));
  });

  it('names the program it was made for', () => {
    const script = zshScript(tree, 'other');
    expect(script.split('\n')[0]).toBe('#compdef other');
    expect(script).toContain('complete -o default -o bashdefault -F _other_complete other');
    expect(script).not.toContain('vredact');
  });

  it.skipIf(!hasZsh)('is valid zsh', async () => {
    const check = await execa('zsh', ['-n'], { input: zshScript(tree, 'vredact'), reject: false });
    expect(check.exitCode, String(check.stderr)).toBe(0);
  });
});
