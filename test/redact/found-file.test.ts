/** Found files held as a folder and a name: their paths, real paths through links, and the plan's view of them. */
import { mkdir, realpath, symlink, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { findFile, InputFolder, RealFolders } from '../../src/redact/found-file.js';
import { expandInputs } from '../../src/redact/inputs.js';
import { buildPlan, displayPath, placeFolder } from '../../src/redact/plan.js';
import { tempDirPerTest, touchFiles } from '../helpers/cli.js';

const dir = tempDirPerTest('vredact-found-file-');

async function folder(rel: string, relDir = rel, origin: 'folder' | 'file' = 'folder') {
  const path = join(dir.path, rel);
  return new InputFolder(path, await new RealFolders().get(path), relDir, origin, rel);
}

describe('a found file', () => {
  it('joins its paths from its folder and its name, and shares the folder with its neighbours', async () => {
    await touchFiles(dir.path, 'calls/2026/a.wav', 'calls/2026/b.wav');
    const shared = await folder('calls/2026', '2026');
    const a = await findFile(shared, 'a.wav');
    const b = await findFile(shared, 'b.wav');
    expect(a.folder).toBe(b.folder);
    expect(a.linkedTo).toBeUndefined();
    expect(a.path).toBe(join(dir.path, 'calls', '2026', 'a.wav'));
    expect(a.realPath).toBe(await realpath(a.path));
    expect([a.rel, a.origin, a.arg]).toEqual(['2026/a.wav', 'folder', 'calls/2026']);
  });

  it('keeps the size and time its lstat saw, for the journal to compare without a second stat', async () => {
    await touchFiles(dir.path, 'in/a.wav');
    await writeFile(join(dir.path, 'in', 'a.wav'), Buffer.alloc(1234));
    await utimes(join(dir.path, 'in', 'a.wav'), 1_700_000_000, 1_700_000_000.25);
    const found = await findFile(await folder('in'), 'a.wav');
    expect([found.seenSize, found.seenMtimeMs]).toEqual([1234, 1_700_000_000_250]);

    // A link is not what its lstat saw: nothing is kept, and the journal's step stats its target.
    await symlink(join(dir.path, 'in', 'a.wav'), join(dir.path, 'in', 'link.wav'));
    const linked = await findFile(await folder('in'), 'link.wav');
    expect([linked.seenSize, linked.seenMtimeMs]).toEqual([-1, -1]);
  });

  it('resolves a file that is itself a link alone, and a folder reached through a link once', async () => {
    await touchFiles(dir.path, 'real/a.wav');
    await mkdir(join(dir.path, 'in'));
    await symlink(join(dir.path, 'real', 'a.wav'), join(dir.path, 'in', 'link.wav'));
    await symlink(join(dir.path, 'real'), join(dir.path, 'via'));
    const real = await realpath(join(dir.path, 'real', 'a.wav'));

    const linked = await findFile(await folder('in'), 'link.wav');
    expect(linked.linkedTo).toBe(real);
    expect(linked.realPath).toBe(real);
    expect(linked.path).toBe(join(dir.path, 'in', 'link.wav'));

    const through = await findFile(await folder('via'), 'a.wav');
    expect(through.linkedTo).toBeUndefined();
    expect(through.realPath).toBe(real);
    expect(through.path).toBe(join(dir.path, 'via', 'a.wav'));
  });

  it('fails as realpath does for a file that is gone or a broken link', async () => {
    await mkdir(join(dir.path, 'in'));
    await symlink(join(dir.path, 'nowhere.wav'), join(dir.path, 'in', 'broken.wav'));
    const inFolder = await folder('in');
    await expect(findFile(inFolder, 'gone.wav')).rejects.toMatchObject({ code: 'ENOENT' });
    await expect(findFile(inFolder, 'broken.wav')).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('gives its key in NFC, its output name as found for a named file', async () => {
    const decomposed = 'cafe\u0301.wav';
    await touchFiles(dir.path, `calls/${decomposed}`, decomposed);
    const expanded = await expandInputs({ cwd: dir.path, args: ['calls', decomposed] });
    const plan = await buildPlan(expanded, { cwd: dir.path, outDir: 'out', ignoresCase: false });
    const [inFolder, named] = plan.entries;
    expect(inFolder?.key).toBe('caf\u00e9.wav');
    expect(inFolder?.outputRel).toBe('caf\u00e9.wav');
    expect(named?.key).toBe('caf\u00e9.wav');
    expect(named?.outputRel).toBe(decomposed);
  });
});

describe('a found file, once its folder is placed', () => {
  it('works out every path of the plan entry from its folder, its name and the plan', async () => {
    await touchFiles(dir.path, 'calls/2026/a.MP3');
    const file = await findFile(await folder('calls/2026', '2026'), 'a.MP3');
    placeFolder(file.folder, { cwd: dir.path, outDir: join(dir.path, 'out') });
    const entry = file;
    expect({
      input: entry.input,
      realPath: entry.realPath,
      display: entry.display,
      key: entry.key,
      output: entry.output,
      outputRel: entry.outputRel,
      outputDisplay: entry.outputDisplay,
      rejected: entry.rejected,
    }).toEqual({
      input: join(dir.path, 'calls', '2026', 'a.MP3'),
      realPath: await realpath(join(dir.path, 'calls', '2026', 'a.MP3')),
      display: join('calls', '2026', 'a.MP3'),
      key: '2026/a.MP3',
      output: join(dir.path, 'out', '2026', 'a.wav'),
      outputRel: '2026/a.wav',
      outputDisplay: join('out', '2026', 'a.wav'),
      rejected: undefined,
    });
  });

  it('shows and places its paths as displayPath and the output folder do, wherever the working folder is', async () => {
    await touchFiles(dir.path, 'w/calls/x/a.wav', 'w/..odd.wav', 'w/calls/..b.mp3', 'elsewhere/c.wav');
    const cases: Array<[string, string, string, 'file' | 'folder']> = [
      ['w/calls/x', 'x', 'a.wav', 'folder'],
      ['w/calls', '', '..b.mp3', 'folder'],
      ['w', '', '..odd.wav', 'file'],
      ['elsewhere', '', 'c.wav', 'file'],
    ];
    for (const cwd of [
      join(dir.path, 'w'),
      join(dir.path, 'w', 'calls'),
      dir.path,
      join(dir.path, 'elsewhere'),
    ]) {
      for (const outDir of [join(dir.path, 'w', 'out'), cwd, join(dir.path, 'o')]) {
        for (const [rel, relDir, name, origin] of cases) {
          const file = await findFile(await folder(rel, relDir, origin), name);
          placeFolder(file.folder, { cwd, outDir });
          const entry = file;
          expect(entry.display).toBe(displayPath(entry.input, cwd));
          expect(entry.output).toBe(join(outDir, ...entry.outputRel.split('/')));
          expect(entry.outputDisplay).toBe(displayPath(entry.output, cwd));
        }
      }
    }
  });
});

describe('a found file before the plan', () => {
  it('has no output yet, and says so instead of guessing one', async () => {
    await touchFiles(dir.path, 'in/a.wav');
    const file = await findFile(await folder('in'), 'a.wav');
    expect(() => file.output).toThrow(/has not been planned/);
  });
});
