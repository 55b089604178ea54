/** Outputs looked for in one listing per folder: the same answers as a look at each file. */
import { existsSync } from 'node:fs';
import { mkdir, rm, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { OutputPresence } from '../../src/redact/output-presence.js';
import type { PlanEntry } from '../../src/redact/plan.js';
import { tempDirPerTest } from '../helpers/cli.js';

const dir = tempDirPerTest('vredact-output-presence-');

function entry(folder: string, name: string, withDir = true): PlanEntry {
  const output = join(dir.path, folder, name);
  return {
    input: '',
    realPath: '',
    display: name,
    key: name,
    output,
    outputRel: `${folder}/${name}`,
    outputDisplay: name,
    ...(withDir ? { outputDir: join(dir.path, folder) } : {}),
  };
}

describe('OutputPresence', () => {
  it('tells a folder where an output goes, listed or looked at alone, never throwing', async () => {
    await mkdir(join(dir.path, 'out', 'sub'), { recursive: true });
    await writeFile(join(dir.path, 'out', 'a.wav'), 'x');
    await symlink(join(dir.path, 'out', 'sub'), join(dir.path, 'out', 'link'));
    await writeFile(join(dir.path, 'file'), 'x');
    // A cap of 0: every folder is past it, so each output is looked at alone.
    for (const presence of [new OutputPresence(), new OutputPresence(0)]) {
      expect(['sub', 'a.wav', 'link', 'b.wav'].map((name) => presence.isFolder(entry('out', name)))).toEqual([
        true,
        false,
        false,
        false,
      ]);
      // Under a file: nothing can be there.
      expect(presence.isFolder(entry('file', 'a.wav'))).toBe(false);
    }
  });

  it('answers as a look at each file would: files, folders, live and dangling links, missing folders', async () => {
    await mkdir(join(dir.path, 'out', 'sub'), { recursive: true });
    await writeFile(join(dir.path, 'out', 'a.wav'), 'x');
    await symlink(join(dir.path, 'out', 'a.wav'), join(dir.path, 'out', 'live.wav'));
    await symlink(join(dir.path, 'out', 'gone.wav'), join(dir.path, 'out', 'dangling.wav'));
    const names = ['a.wav', 'b.wav', 'sub', 'live.wav', 'dangling.wav'];
    const presence = new OutputPresence();
    for (const name of names) {
      expect(presence.exists(entry('out', name)), name).toBe(existsSync(join(dir.path, 'out', name)));
    }
    expect(presence.exists(entry('absent', 'a.wav'))).toBe(false);
    // Without the plan's folder, the output's own says where to look.
    expect(presence.exists(entry('out', 'a.wav', false))).toBe(true);
  });

  it('lists a folder once: an output asked for after its folder was left is looked at alone', async () => {
    await mkdir(join(dir.path, 'one'), { recursive: true });
    await mkdir(join(dir.path, 'two'), { recursive: true });
    const presence = new OutputPresence();
    expect(presence.exists(entry('one', 'x.wav'))).toBe(false);
    expect(presence.exists(entry('two', 'y.wav'))).toBe(false);
    // Written after the listing: a listing read again would not know it; the file's own look does.
    await writeFile(join(dir.path, 'one', 'x.wav'), 'x');
    expect(presence.exists(entry('one', 'x.wav'))).toBe(true);
  });

  it('looks at each file of a folder past the cap', async () => {
    await mkdir(join(dir.path, 'big'), { recursive: true });
    for (const name of ['1.wav', '2.wav', '3.wav']) await writeFile(join(dir.path, 'big', name), 'x');
    const presence = new OutputPresence(2);
    expect(presence.exists(entry('big', '4.wav'))).toBe(false);
    await writeFile(join(dir.path, 'big', '4.wav'), 'x');
    // Not from a listing (there is none past the cap): the file is looked at.
    expect(presence.exists(entry('big', '4.wav'))).toBe(true);
    await rm(join(dir.path, 'big', '1.wav'));
    expect(presence.exists(entry('big', '1.wav'))).toBe(false);
  });
});
