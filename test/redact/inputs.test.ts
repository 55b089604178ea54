import { mkdir, open, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { execa } from 'execa';
import { describe, expect, it, vi } from 'vitest';
import { UsageError } from '../../src/errors.js';
import { parseListText, readFilesFrom } from '../../src/redact/files-from.js';
import { expandInputs } from '../../src/redact/inputs.js';
import { tempDirPerTest, touchFiles } from '../helpers/cli.js';

const dir = tempDirPerTest('vredact-inputs-');

// A folder named `locked` cannot be read, whoever runs the tests (root reads every folder).
vi.mock('node:fs', async (importOriginal) => {
  const real = await importOriginal<typeof import('node:fs')>();
  const readdir = (path: string, ...rest: unknown[]) => {
    const callback = rest.at(-1) as (error: Error | null) => void;
    if (String(path).endsWith('/locked')) {
      callback(Object.assign(new Error('EACCES: injected'), { code: 'EACCES' }));
      return;
    }
    (real.readdir as (...args: unknown[]) => void)(path, ...rest);
  };
  return { ...real, readdir, default: { ...real, readdir } };
});

const touch = (...paths: string[]) => touchFiles(dir.path, ...paths);

async function expand(args: string[], options: { listed?: string[]; outDir?: string } = {}) {
  const expanded = await expandInputs({
    cwd: dir.path,
    args,
    listed: options.listed,
    outDir: join(dir.path, options.outDir ?? 'out'),
  });
  return { ...expanded, files: [...expanded.files] };
}

const rels = (files: Array<{ rel: string }>) => files.map((file) => file.rel).sort();

describe('named inputs', () => {
  it('a file is its base name, a folder its recursive .wav and .mp3 files, skipping other and hidden ones', async () => {
    await touch(
      'one/a.MP3',
      'calls/2026/11/a.wav',
      'calls/2026/12/B.WAV',
      'calls/x.Mp3',
      'calls/notes.txt',
      'calls/.hidden.wav',
      'calls/.cache/c.wav',
    );
    const { files, problems } = await expand(['one/a.MP3', 'calls']);
    expect(problems).toEqual([]);
    expect(files.map((file) => [file.arg, file.rel, file.origin])).toEqual(
      expect.arrayContaining([
        ['one/a.MP3', 'a.MP3', 'file'],
        ['calls', '2026/11/a.wav', 'folder'],
      ]),
    );
    expect(rels(files)).toEqual(['2026/11/a.wav', '2026/12/B.WAV', 'a.MP3', 'x.Mp3']);
    expect(files.find((file) => file.rel === 'a.MP3')?.path).toBe(join(dir.path, 'one', 'a.MP3'));
  });

  it('a glob is mirrored under its fixed leading part, case-sensitively like the shell', async () => {
    await touch('calls/2026/11/a.wav', 'calls/2026/12/C.WAV', 'calls/top.wav', 'other/z.wav');
    const { files } = await expand(['calls/**/*.wav']);
    expect(rels(files)).toEqual(['2026/11/a.wav', 'top.wav']);
    expect(files.every((file) => file.origin === 'glob')).toBe(true);
  });

  it('a pattern with ? in a folder matches as the shell does, not from a folder named with the ?', async () => {
    await touch('calls/2026-01/a.wav', 'calls/2026-02/x/b.wav', 'calls/.h1/c.wav', 'calls/ab/d.wav');
    const { files, problems } = await expand(['calls/2026-0?/**/*.wav', 'calls/?[b1]/*.wav']);
    expect(problems).toEqual([]);
    expect(rels(files)).toEqual(['2026-01/a.wav', '2026-02/x/b.wav', 'ab/d.wav']);
  });

  it('a pattern that matches nothing and a named input that does not exist are problems, not errors', async () => {
    const { files, problems } = await expand(['nothing/**/*.wav', 'missing.wav']);
    expect(files).toEqual([]);
    expect(problems.map((problem) => [problem.arg, problem.reason])).toEqual([
      ['nothing/**/*.wav', 'no files match this pattern'],
      ['missing.wav', 'no such file or folder'],
    ]);
  });

  it('a folder that cannot be read is rejected by its path, and the rest of the listing goes on', async () => {
    await touch('calls/a.wav', 'calls/locked/b.wav', 'calls/z/c.wav');
    for (const args of [['calls'], ['calls/**/*.wav']]) {
      const { files, problems } = await expand(args);
      expect(rels(files)).toEqual(['a.wav', 'z/c.wav']);
      expect(problems).toEqual([
        {
          arg: args[0],
          path: join(dir.path, 'calls', 'locked'),
          reason: 'cannot read the folder: permission denied',
          showPath: true,
        },
      ]);
    }
    // A named folder that cannot be read is the argument's own problem, and not an empty folder.
    const locked = await expand(['calls/locked']);
    expect(locked.problems).toEqual([
      {
        arg: 'calls/locked',
        path: join(dir.path, 'calls', 'locked'),
        reason: 'cannot read the folder: permission denied',
        showPath: false,
      },
    ]);
    expect(locked.emptyFolders).toEqual([]);
  });

  // Only Linux file systems take any bytes in a name.
  it.skipIf(process.platform !== 'linux')(
    'a folder or a file whose name is not UTF-8 is rejected saying so, and the rest is listed',
    async () => {
      await touch('calls/a.wav');
      const calls = Buffer.from(join(dir.path, 'calls', '/'));
      await mkdir(Buffer.concat([calls, Buffer.from([0x64, 0xe9, 0x63])]));
      await writeFile(
        Buffer.concat([calls, Buffer.from([0x64, 0xe9, 0x63, 0x2f, 0x62, 0x2e, 0x77, 0x61, 0x76])]),
        '',
      );
      await writeFile(Buffer.concat([calls, Buffer.from([0x62, 0xff, 0x2e, 0x77, 0x61, 0x76])]), '');
      const { files, problems } = await expand(['calls', join('calls', 'b\uFFFD.wav')]);
      expect(rels(files)).toEqual(['a.wav']);
      const notUtf8 = expect.stringMatching(
        /^(cannot read the folder: )?its name is not valid UTF-8 .*convmv/,
      );
      expect(problems).toEqual([
        { arg: 'calls', path: join(dir.path, 'calls', 'd\uFFFDc'), reason: notUtf8, showPath: true },
        { arg: 'calls', path: join(dir.path, 'calls', 'b\uFFFD.wav'), reason: notUtf8, showPath: true },
        { arg: join('calls', 'b\uFFFD.wav'), path: join(dir.path, 'calls', 'b\uFFFD.wav'), reason: notUtf8 },
      ]);
    },
  );

  it('finds the files under folders whose names hold a line break, a return or a tab', async () => {
    await touch(
      'calls/a\nb/x.wav',
      'calls/c\rd/y.WAV',
      'calls/e\tf/z.mp3',
      'calls/g\u2028h/w.wav',
      'calls/ok.wav',
    );
    const { files, problems } = await expand(['calls']);
    expect(problems).toEqual([]);
    expect(rels(files)).toEqual(['a\nb/x.wav', 'c\rd/y.WAV', 'e\tf/z.mp3', 'g\u2028h/w.wav', 'ok.wav']);
  });

  it('a pattern finds a file whose name holds a backslash, a glob character or a line break, by that name', async () => {
    // fast-glob's absolute paths turn every backslash into `/`: `back\slash.wav` was found as `back/slash.wav`.
    await touch('calls/back\\slash.wav', 'calls/x/take[1]*.wav', 'calls/x/a\nb.wav');
    const { files, problems } = await expand(['calls/**/*.wav']);
    expect(problems).toEqual([]);
    expect(rels(files)).toEqual(['back\\slash.wav', 'x/a\nb.wav', 'x/take[1]*.wav']);
    expect(files.find((file) => file.rel === 'back\\slash.wav')?.path).toBe(
      join(dir.path, 'calls', 'back\\slash.wav'),
    );
  });

  it('the same file named twice, or reached through a link, is kept once and counted as a duplicate', async () => {
    await touch('calls/a.wav');
    await symlink(join(dir.path, 'calls', 'a.wav'), join(dir.path, 'link.wav'));
    const { files, duplicates } = await expand(['calls/a.wav', './calls/a.wav', 'calls', 'link.wav']);
    expect(files.map((file) => file.arg)).toEqual(['calls/a.wav']);
    expect(duplicates).toBe(3);
  });

  it('does not walk round a symbolic link that leads back up the tree, and follows one that leads elsewhere', async () => {
    await touch('calls/a.wav', 'calls/sub/b.wav', 'elsewhere/c.wav');
    await symlink('..', join(dir.path, 'calls', 'sub', 'up'));
    await symlink(join(dir.path, 'elsewhere'), join(dir.path, 'calls', 'ext'));
    for (const args of [['calls'], ['calls/**/*.wav']]) {
      const { files, duplicates, problems } = await expand(args);
      expect(problems).toEqual([]);
      expect(rels(files)).toEqual(['a.wav', 'ext/c.wav', 'sub/b.wav']);
      expect(duplicates).toBe(0);
    }
    // Three links to the folder itself made 3^40 paths to walk: the listing never ended.
    for (const name of ['l1', 'l2', 'l3']) await symlink('.', join(dir.path, 'calls', name));
    const { files } = await expand(['calls', 'calls/**/*.wav']);
    expect(rels(files)).toEqual(['a.wav', 'ext/c.wav', 'sub/b.wav']);
  });

  it('a broken link named as audio in a folder is reported, not skipped in silence', async () => {
    await touch('calls/a.wav');
    await symlink('gone.wav', join(dir.path, 'calls', 'lost.wav'));
    const { files, problems } = await expand(['calls']);
    expect(rels(files)).toEqual(['a.wav']);
    expect(problems).toEqual([
      expect.objectContaining({
        path: join(dir.path, 'calls', 'lost.wav'),
        reason: 'a broken symbolic link: it points to gone.wav, which does not exist',
      }),
    ]);
  });

  it('a broken link named on the command line says where it points; a missing file says it is missing', async () => {
    await symlink('/gone/far\x1b[2Jaway.wav', join(dir.path, 'lost.wav'));
    const { problems } = await expand(['lost.wav', 'absent.wav']);
    expect(problems.map((problem) => problem.reason)).toEqual([
      'a broken symbolic link: it points to /gone/far\\x1b[2Jaway.wav, which does not exist',
      'no such file or folder',
    ]);
  });

  it('a broken link or a FIFO matched by a pattern is reported as in a folder, not skipped in silence', async () => {
    await touch('calls/a.wav', 'calls/sub/b.wav');
    await symlink('gone.wav', join(dir.path, 'calls', 'lost.wav'));
    await execa('mkfifo', [join(dir.path, 'calls', 'pipe.wav')]);
    for (const arg of ['calls', 'calls/**/*.wav']) {
      const { files, problems } = await expand([arg]);
      // The FIFO is found, for the checks to reject unopened; the link is gone, a problem here.
      expect(rels(files)).toEqual(['a.wav', 'pipe.wav', 'sub/b.wav']);
      expect(problems).toEqual([
        expect.objectContaining({
          path: join(dir.path, 'calls', 'lost.wav'),
          reason: 'a broken symbolic link: it points to gone.wav, which does not exist',
        }),
      ]);
    }
  });

  it('a folder that is the output folder itself is rejected: its outputs would be found as inputs', async () => {
    await touch('calls/a.mp3', 'calls/a.wav');
    await symlink(join(dir.path, 'calls'), join(dir.path, 'same'));
    for (const outDir of ['calls', 'same']) {
      const { files, problems } = await expand(['calls', 'calls/a.mp3'], { outDir });
      expect(problems).toEqual([
        expect.objectContaining({ arg: 'calls', reason: expect.stringMatching(/is the output folder/) }),
      ]);
      // A file named there is still taken (the plan rejects it if its output would overwrite it).
      expect(rels(files)).toEqual(['a.mp3']);
    }
  });

  it('leaves out the output folder inside the searched one when either is named through a link', async () => {
    // The earlier run's output: taken as an input, it was redacted again into red/red/, every run.
    await touch('calls/a.wav', 'calls/red/a.wav');
    await symlink(join(dir.path, 'calls', 'red'), join(dir.path, 'out'));
    await symlink(join(dir.path, 'calls'), join(dir.path, 'link'));
    for (const [arg, outDir] of [
      ['calls', 'out'],
      ['link', 'calls/red'],
      ['link/**/*.wav', 'calls/red'],
      ['calls/**/*.wav', 'out'],
    ] as const) {
      const { files, problems } = await expand([arg], { outDir });
      expect(problems).toEqual([]);
      expect(rels(files)).toEqual(['a.wav']);
    }
  });

  it('files under the output folder are never inputs; a folder without audio is reported as empty', async () => {
    await touch('calls/a.wav', 'calls/redacted/a.wav', 'notes/readme.txt');
    await mkdir(join(dir.path, 'empty'));
    const { files, emptyFolders } = await expand(['calls', 'notes', 'empty'], { outDir: 'calls/redacted' });
    expect(files.map((file) => file.rel)).toEqual(['a.wav']);
    expect(emptyFolders.length).toBe(2);
  });
});

describe('--files-from', () => {
  it('reads one path per line, ignoring blank lines and # comments', async () => {
    await touch('list/a.wav', 'list/b c.wav', 'c.wav');
    const text = '\uFEFFlist/a.wav\r\n\n  # comment\n  list/b c.wav  \r\n#x.wav\n   \nc.wav';
    expect(parseListText(text)).toEqual([
      'list/a.wav',
      '  # comment',
      '  list/b c.wav  ',
      '#x.wav',
      '   ',
      'c.wav',
    ]);
    const fromStdin = await readFilesFrom('-', dir.path, Readable.from([Buffer.from(text)]));
    const { files, problems } = await expand([], { listed: fromStdin });
    expect(problems).toEqual([]);
    expect(files.map((file) => file.rel)).toEqual(['a.wav', 'b c.wav', 'c.wav']);
  });

  it('takes a line as written when it names a file: one starting with # or a space is not lost', async () => {
    // As `ls | vredact redact --files-from -` lists them: `#1.wav` was dropped in silence as a
    // comment, and ` lead.wav` rejected as `lead.wav`, which is not there.
    await touch('#1.wav', ' lead.wav', 'trail.wav ', '# notes.wav');
    const listed = parseListText('#1.wav\n lead.wav\ntrail.wav \n# notes.wav\n# a comment\n');
    const { files, problems } = await expand([], { listed });
    expect(problems).toEqual([]);
    expect(files.map((file) => file.rel)).toEqual(['#1.wav', ' lead.wav', 'trail.wav ', '# notes.wav']);
  });

  it('reads a NUL-separated list (find -print0) with -0: every entry a path as it is', async () => {
    await touch('a\nb.wav', ' c.wav', 'd.wav');
    const listed = parseListText('a\nb.wav\0 c.wav\0#d.wav\0 d.wav\0', true);
    expect(listed).toEqual(['a\nb.wav', ' c.wav', '#d.wav', ' d.wav']);
    const expanded = await expandInputs({ cwd: dir.path, args: [], listed, listedVerbatim: true });
    expect([...expanded.files].map((file) => file.rel)).toEqual(['a\nb.wav', ' c.wav']);
    expect(expanded.problems.map((problem) => [problem.arg, problem.reason])).toEqual([
      ['#d.wav', 'no such file or folder'],
      [' d.wav', 'no such file or folder'],
    ]);
  });

  it('rejects a NUL-separated list read by lines, saying how to read it', async () => {
    await touch('a.wav', 'b.wav');
    const { files, problems } = await expand([], { listed: parseListText('a.wav\0b.wav\0') });
    expect(files).toEqual([]);
    expect(problems.map((problem) => problem.reason)).toEqual([
      expect.stringMatching(/holds a NUL byte.*read with -0 \(--null\)/),
    ]);
  });

  it('answers `redact -` with where a list on stdin goes', async () => {
    const { problems } = await expand(['-']);
    expect(problems.map((problem) => problem.reason)).toEqual([
      'no such file or folder (a list of inputs on stdin is read with --files-from -)',
    ]);
  });

  it('treats listed lines as paths, not patterns', async () => {
    await touch('a.wav');
    const { files, problems } = await expand([], { listed: ['*.wav'] });
    expect(files).toEqual([]);
    expect(problems.map((problem) => problem.reason)).toEqual(['no such file or folder']);
  });

  it('is a usage error when the list cannot be read', async () => {
    const failure = readFilesFrom('nope.txt', dir.path, Readable.from([]));
    await expect(failure).rejects.toThrow(/--files-from/);
    await expect(failure).rejects.toBeInstanceOf(UsageError);
    await expect(failure).rejects.toMatchObject({
      hint: 'give --files-from a file of paths, one per line, or - to read them from standard input',
    });
  });

  it('reads a named pipe until its writer closes it, and lets go of it at an interrupt', async () => {
    await execa('mkfifo', [join(dir.path, 'list')]);
    const listed = readFilesFrom('list', dir.path, Readable.from([]));
    // Opening a FIFO to write returns once its reader has it open.
    const writer = await open(join(dir.path, 'list'), 'w');
    await writer.write('a.wav\n');
    await writer.write('b.wav\n');
    await writer.close();
    expect(await listed).toEqual(['a.wav', 'b.wav']);

    const stop = new AbortController();
    const held = readFilesFrom('list', dir.path, Readable.from([]), false, stop.signal);
    const holding = await open(join(dir.path, 'list'), 'w');
    try {
      await holding.write('c.wav\n');
      stop.abort();
      // Let go with its writer still holding the pipe: no usage error, the interrupt ends the run.
      await expect(held).rejects.not.toBeInstanceOf(UsageError);
    } finally {
      await holding.close();
    }
  });

  it('lets go of a named pipe at once when the interrupt came while the pipe was opened', async () => {
    await execa('mkfifo', [join(dir.path, 'list')]);
    const stop = new AbortController();
    stop.abort();
    const held = readFilesFrom('list', dir.path, Readable.from([]), false, stop.signal);
    const holding = await open(join(dir.path, 'list'), 'w');
    try {
      await holding.write('c.wav\n');
      // Before, the pipe was read after the abort had fired, waiting for its writer for good.
      await expect(held).rejects.not.toBeInstanceOf(UsageError);
    } finally {
      await holding.close();
    }
  });

  it('says what to give when the list is a folder', async () => {
    const failure = readFilesFrom('.', dir.path, Readable.from([]));
    await expect(failure).rejects.toThrow('cannot read the --files-from list .: is a folder');
    await expect(failure).rejects.toMatchObject({ hint: expect.stringMatching(/^give --files-from a file/) });
  });
});
