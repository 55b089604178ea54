/** The zsh completion script: the function bash runs, with bashcompinit's compgen, offering zsh's way. */
import { spawnSync } from 'node:child_process';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { buildProgram } from '../../../src/cli/program.js';
import { bashScript, offerFunction } from '../../../src/commands/completion/bash.js';
import { describeTree } from '../../../src/commands/completion/tree.js';
import { zshScript } from '../../../src/commands/completion/zsh.js';

const hasZsh = spawnSync('zsh', ['-c', 'exit 0']).status === 0;
const tree = describeTree(buildProgram());

describe('zshScript', () => {
  it('is a #compdef file that loads compinit and bashcompinit before the shared function', () => {
    const script = zshScript(tree, 'vredact');
    const lines = script.split('\n');
    expect(lines[0]).toBe('#compdef vredact');
    const compinit = lines.findIndex((line) => line.includes('compinit') && !line.includes('bashcompinit'));
    const bashcompinit = lines.findIndex((line) => line.includes('bashcompinit && bashcompinit'));
    expect(compinit).toBeGreaterThan(0);
    expect(bashcompinit).toBeGreaterThan(compinit);
    // The very same function as bash runs to follow the words, so the two shells cannot drift apart.
    const shared = offerFunction(tree, 'vredact');
    expect(bashScript(tree, 'vredact')).toContain(shared);
    expect(script.indexOf(shared)).toBeGreaterThan(script.indexOf('bashcompinit && bashcompinit'));
    // zsh offers on its own: an empty reply is no cue for bashcompinit's `-o default` to list files.
    expect(script).not.toContain('complete -o default');
  });

  it('names the program it was made for', () => {
    const script = zshScript(tree, 'other');
    expect(script.split('\n')[0]).toBe('#compdef other');
    expect(script).toContain('compdef _other_complete other');
    expect(script).not.toContain('vredact');
  });

  it.skipIf(!hasZsh)('is valid zsh', async () => {
    const check = await execa('zsh', ['-n'], { input: zshScript(tree, 'vredact'), reject: false });
    expect(check.exitCode, String(check.stderr)).toBe(0);
  });
});
