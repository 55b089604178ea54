/**
 * The order of the system calls that publish an output, as an injected file-system layer records
 * them: the output's folder is flushed after the rename, and that flush has ended before the journal's
 * `done` line is written (redact) or the file is reported (download). Without the folder's flush, a
 * power loss could keep the line and lose the rename. The same for the journal itself: its folder is
 * flushed after a run creates it, opens one an older run left, or puts its compaction in place,
 * before a line is appended to it and before the first upload that an `uploading` line guards; and
 * a lock's folder after the lock is put in place, before the run that took it goes on. A folder a run
 * makes (the output folder, `.vredact`, a subfolder mirroring an input's) is flushed into its parent,
 * top-down, before anything in it is relied on: a power loss could otherwise take the folder with
 * everything in it, the journal and the outputs it calls done.
 */
import * as realFs from 'node:fs';
import { readdir, readFile, writeFile, mkdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { describe, expect, it, vi } from 'vitest';
import type { BodySink, RedactionAnswer } from '../../src/api/client.js';
import { createContext } from '../../src/context.js';
import { downloadFiles } from '../../src/download/download-files.js';
import { writeFileAtomically } from '../../src/fs/atomic-write.js';
import { createPrivateFileExclusively } from '../../src/fs/exclusive-create.js';
import { createInterruptController } from '../../src/interrupt.js';
import { runBatch } from '../../src/redact/batch.js';
import { acquireLock, lockPath } from '../../src/redact/lock.js';
import type { RedactClient } from '../../src/redact/engine.js';
import { parseRedactOptions } from '../../src/redact/options.js';
import { memoryConfigStore } from '../../src/settings/config-store.js';
import { tempDirPerTest } from '../helpers/cli.js';
import { journalLine, writeJournal } from '../helpers/journal.js';
import { recordingLogger } from '../helpers/logger.js';
import { resultWav } from '../helpers/result-wav.js';
import { makeWav } from '../helpers/mp3.js';

type Event =
  | { op: 'open'; path: string }
  | { op: 'create'; path: string }
  | { op: 'rename' | 'link'; to: string }
  | { op: 'link-refused'; to: string }
  | { op: 'mkdir'; path: string }
  | { op: 'fsync-start' | 'fsync-end'; path: string; id: number }
  | { op: 'write'; path: string; text: string }
  | { op: 'reported'; path: string }
  | { op: 'upload'; name: string };

const trace = vi.hoisted(() => ({
  events: [] as unknown[],
  fds: new Map<number, string>(),
  ids: 0,
  /** A file system without hard links: link(2) fails with EPERM. */
  noHardLinks: false,
}));
const events = () => trace.events as Event[];

type Callback = (error: NodeJS.ErrnoException | null, ...results: unknown[]) => void;

vi.mock('node:fs', async (importOriginal) => {
  const real = await importOriginal<typeof import('node:fs')>();
  const { promisify } = await import('node:util');
  const call = (fn: unknown, args: unknown[]) => (fn as (...all: unknown[]) => void)(...args);
  const open = (path: unknown, ...rest: unknown[]) => {
    const callback = rest.pop() as Callback;
    call(real.open, [
      path,
      ...rest,
      (error: NodeJS.ErrnoException | null, fd: number) => {
        if (!error) {
          trace.fds.set(fd, String(path));
          trace.events.push({ op: 'open', path: String(path) });
        }
        callback(error, fd);
      },
    ]);
  };
  const close = (fd: number, callback: Callback) => {
    trace.fds.delete(fd);
    real.close(fd, callback);
  };
  const fsync = (fd: number, callback: Callback) => {
    const id = ++trace.ids;
    const path = trace.fds.get(fd) ?? '?';
    trace.events.push({ op: 'fsync-start', path, id });
    real.fsync(fd, (error) => {
      trace.events.push({ op: 'fsync-end', path, id });
      callback(error);
    });
  };
  const recordWrite = (fd: number, buffer: unknown) => {
    if (Buffer.isBuffer(buffer)) {
      trace.events.push({ op: 'write', path: trace.fds.get(fd) ?? '?', text: buffer.toString('utf8') });
    }
  };
  const write = (fd: number, buffer: unknown, ...rest: unknown[]) => {
    recordWrite(fd, buffer);
    call(real.write, [fd, buffer, ...rest]);
  };
  // promisify(write) resolves to { bytesWritten, buffer }, as it does for the real one.
  Object.assign(write, {
    [promisify.custom]: (fd: number, buffer: unknown, ...rest: unknown[]) =>
      new Promise((resolve, reject) => {
        write(fd, buffer, ...rest, (error: Error | null, bytesWritten: number, written: unknown) => {
          if (error) reject(error);
          else resolve({ bytesWritten, buffer: written });
        });
      }),
  });
  const patched = { open, close, fsync, write };
  return { ...real, ...patched, default: { ...real, ...patched } };
});

vi.mock('node:fs/promises', async (importOriginal) => {
  const real = await importOriginal<typeof import('node:fs/promises')>();
  const rename = async (from: realFs.PathLike, to: realFs.PathLike) => {
    await real.rename(from, to);
    trace.events.push({ op: 'rename', to: String(to) });
  };
  const link = async (from: realFs.PathLike, to: realFs.PathLike) => {
    if (trace.noHardLinks) {
      trace.events.push({ op: 'link-refused', to: String(to) });
      throw Object.assign(new Error('EPERM: operation not permitted, link'), { code: 'EPERM' });
    }
    await real.link(from, to);
    trace.events.push({ op: 'link', to: String(to) });
  };
  // A file created exclusively in place ('wx'), as a lock is without hard links.
  const open = async (path: realFs.PathLike, flags?: string | number, mode?: realFs.Mode) => {
    const handle = await real.open(path, flags, mode);
    if (flags === 'wx') trace.events.push({ op: 'create', path: String(path) });
    return handle;
  };
  // Only a folder made: mkdir that found one there made nothing.
  const mkdir = async (path: realFs.PathLike, options?: realFs.MakeDirectoryOptions) => {
    const made = await real.mkdir(path, options);
    trace.events.push({ op: 'mkdir', path: String(path) });
    return made;
  };
  const patched = { rename, link, open, mkdir };
  return { ...real, ...patched, default: { ...real, ...patched } };
});

const dir = tempDirPerTest('vredact-flush-order-');

/**
 * Checks, for `output`, that its rename is followed by a flush of its folder that started after it and
 * ended before `settled` (the index of what reports it done).
 */
function expectFlushedBetween(output: string, settled: number): void {
  const all = events();
  const renamed = all.findIndex((event) => event.op === 'rename' && event.to === output);
  expect(renamed, `the rename of ${output}`).toBeGreaterThanOrEqual(0);
  const folder = dirname(output);
  const flushes = all.flatMap((event, index) =>
    event.op === 'fsync-start' && event.path === folder && index > renamed ? [{ index, id: event.id }] : [],
  );
  const ended = flushes.some(({ id }) => {
    const end = all.findIndex((event) => event.op === 'fsync-end' && event.id === id);
    return end >= 0 && end < settled;
  });
  expect(ended, `a flush of ${folder} after the rename of ${output}, ended before it is reported`).toBe(true);
  expect(renamed).toBeLessThan(settled);
}

/** The service's answer to each upload: a WAV at once; each upload is an event. */
const answeringClient = {
  redact: async <T>(_path: string, _fields: unknown, name: string, sink: BodySink<T>) => {
    trace.events.push({ op: 'upload', name });
    const bytes = makeWav(0.5);
    const result = await sink({
      body: Readable.from([bytes]),
      contentLength: bytes.length,
      contentType: 'audio/wav',
    });
    return { kind: 'audio', result } as RedactionAnswer<T>;
  },
} as unknown as RedactClient;

/** `vredact redact in -o <out> -c 8 --json`, in-process, with the client above. */
async function redactInto(out: string): Promise<{ code: number; said: string }> {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let said = '';
  for (const stream of [stdout, stderr]) {
    stream.on('data', (chunk: Buffer) => {
      said += chunk;
    });
  }
  const ctx = await createContext(
    { outDir: out, concurrency: '8', json: true, color: false },
    {
      streams: { stdout, stderr, stdin: Readable.from([]) },
      env: {},
      cwd: dir.path,
      config: memoryConfigStore(),
    },
  );
  const code = await runBatch(
    ctx,
    { args: ['in'], listed: [], options: parseRedactOptions({ wait: true }) },
    createInterruptController().signals,
    { client: answeringClient },
  );
  return { code, said };
}

/** The index of the first event that `matches`, which must be there. */
function firstIndex(what: string, matches: (event: Event) => boolean): number {
  const index = events().findIndex(matches);
  expect(index, what).toBeGreaterThanOrEqual(0);
  return index;
}

/**
 * Checks that a flush of `folder` started after the event at `after` and ended before the event at
 * `before`.
 */
function expectFolderFlushedBetween(folder: string, after: number, before: number): void {
  const all = events();
  const ended = all.some((event, index) => {
    if (event.op !== 'fsync-start' || event.path !== folder || index <= after) return false;
    const end = all.findIndex((other) => other.op === 'fsync-end' && other.id === event.id);
    return end >= 0 && end < before;
  });
  expect(ended, `a flush of ${folder} after event ${after}, ended before event ${before}`).toBe(true);
}

describe('the folder of an output is flushed after its rename, before it is reported done', () => {
  it('writeFileAtomically resolves only once the folder is flushed after the rename', async () => {
    trace.events.length = 0;
    const dest = join(dir.path, 'sub', 'a.wav');
    await writeFileAtomically(dest, Readable.from([Buffer.from('abc')]));
    events().push({ op: 'reported', path: dest });
    expectFlushedBetween(dest, events().length - 1);
    expect(await readFile(dest, 'utf8')).toBe('abc');
  });

  it('download: each file is reported downloaded after the flush of its folder', async () => {
    trace.events.length = 0;
    const names = Array.from({ length: 12 }, (_, i) => `f${i}.wav`);
    const client = {
      downloadJobFile: <T>(_jobId: string, fileName: string, sink: BodySink<T>) => {
        const bytes = resultWav(2 * (100 + names.indexOf(fileName))); // a whole WAV each, as download keeps no other
        return sink({ body: Readable.from([bytes]), contentLength: bytes.length, contentType: 'audio/wav' });
      },
    };
    const { signals } = createInterruptController();
    const reported: string[] = [];
    await downloadFiles(
      {
        client,
        concurrency: 8,
        signals,
        onOutcome: (outcome) => {
          expect(outcome.status).toBe('downloaded');
          reported.push(outcome.path as string);
          events().push({ op: 'reported', path: outcome.path as string });
        },
      },
      {
        jobId: 'job1',
        outDir: dir.path,
        overwrite: false,
        source: async (sink) => {
          for (const fileName of names) sink.add({ fileName, duration: null });
        },
      },
    );
    expect(reported.sort()).toEqual(names.map((name) => join(dir.path, name)).sort());
    for (const path of reported) {
      expectFlushedBetween(
        path,
        events().findIndex((event) => event.op === 'reported' && event.path === path),
      );
    }
  });

  it("redact: each output's done line is written after the flush of its folder", async () => {
    trace.events.length = 0;
    await mkdir(join(dir.path, 'in', 'sub'), { recursive: true });
    const names = Array.from({ length: 12 }, (_, i) => `sub/f${i}.wav`);
    for (const name of names) await writeFile(join(dir.path, 'in', name), makeWav(0.5));
    const { code, said } = await redactInto('out');
    expect(code, said).toBe(0);
    const outDir = join(dir.path, 'out');
    expect((await readdir(join(outDir, 'sub'))).sort()).toEqual(
      names.map((name) => name.slice('sub/'.length)).sort(),
    );
    for (const name of names) {
      const doneLine = events().findIndex(
        (event) =>
          event.op === 'write' &&
          event.path.endsWith('journal.jsonl') &&
          event.text
            .split('\n')
            .some((line) => line.includes('"event":"done"') && line.includes(`"${name}"`)),
      );
      expect(doneLine, `the done line of ${name}`).toBeGreaterThanOrEqual(0);
      expectFlushedBetween(join(outDir, name), doneLine);
    }
  });
});

describe("the journal's folder is flushed once per run, before anything depends on its name", () => {
  const journalWrite = (journal: string) => (event: Event) => event.op === 'write' && event.path === journal;
  const firstUpload = (event: Event) => event.op === 'upload';

  it('a journal a run creates: flushed after its creation, before its first line and the first upload', async () => {
    trace.events.length = 0;
    await mkdir(join(dir.path, 'in'), { recursive: true });
    await writeFile(join(dir.path, 'in', 'a.wav'), makeWav(0.5));
    const { code, said } = await redactInto('fresh');
    expect(code, said).toBe(0);
    const state = join(dir.path, 'fresh', '.vredact');
    const journal = join(state, 'journal.jsonl');
    const created = firstIndex(
      'the journal opened',
      (event) => event.op === 'open' && event.path === journal,
    );
    const firstLine = firstIndex('its first line', journalWrite(journal));
    expect(events()[firstLine]).toMatchObject({ text: expect.stringContaining('"event":"uploading"') });
    const upload = firstIndex('the upload', firstUpload);
    expectFolderFlushedBetween(state, created, Math.min(firstLine, upload));
  });

  it('a compacted journal: flushed after its rename, before the first line appended and the first upload', async () => {
    trace.events.length = 0;
    await mkdir(join(dir.path, 'in'), { recursive: true });
    await writeFile(join(dir.path, 'in', 'a.wav'), makeWav(0.5));
    // Years of nights of one input long gone: far over 2 lines per input plus 1,000.
    const history = Array.from({ length: 1_100 }, (_, night) =>
      journalLine({
        event: 'failed',
        at: new Date(Date.UTC(2024, 0, 1) + night * 86_400_000).toISOString(),
        input: '/gone/x.wav',
        output: 'x.wav',
        reason: 'service unavailable',
      }),
    );
    const journal = await writeJournal(join(dir.path, 'kept'), history);
    const { code, said } = await redactInto('kept');
    expect(code, said).toBe(0);
    expect(said).toContain('compacted the journal: 1100 lines → 1');
    const renamed = firstIndex(
      'the compaction put in place',
      (event) => event.op === 'rename' && event.to === journal,
    );
    const firstLine = firstIndex('the first line appended', journalWrite(journal));
    const upload = firstIndex('the upload', firstUpload);
    expectFolderFlushedBetween(dirname(journal), renamed, Math.min(firstLine, upload));
  });

  it('a journal an older run left: flushed after it is opened, before the first line appended and the first upload', async () => {
    trace.events.length = 0;
    await mkdir(join(dir.path, 'in'), { recursive: true });
    await writeFile(join(dir.path, 'in', 'a.wav'), makeWav(0.5));
    // Written by an older version, or by this one before journals were flushed: its name may be an
    // entry of the folder that no flush made durable.
    const journal = await writeJournal(join(dir.path, 'older'), [
      {
        event: 'failed',
        at: '2026-01-01T00:00:00.000Z',
        input: '/gone/x.wav',
        output: 'x.wav',
        reason: 'service unavailable',
      },
    ]);
    const { code, said } = await redactInto('older');
    expect(code, said).toBe(0);
    const firstLine = firstIndex('the first line appended', journalWrite(journal));
    expect(events()[firstLine]).toMatchObject({ text: expect.stringContaining('"event":"uploading"') });
    // The open for appending: the last before its first line (a read of it may come before).
    const opened = events().findLastIndex(
      (event, index) => index < firstLine && event.op === 'open' && event.path === journal,
    );
    expect(opened, 'the journal opened for appending').toBeGreaterThanOrEqual(0);
    const upload = firstIndex('the upload', firstUpload);
    expectFolderFlushedBetween(dirname(journal), opened, Math.min(firstLine, upload));
  });
});

describe("a lock's folder is flushed once the lock is in place, before the run that took it goes on", () => {
  it("the run's lock: flushed after its hard link, before acquireLock resolves", async () => {
    trace.events.length = 0;
    const out = join(dir.path, 'locked');
    const lock = await acquireLock(out, recordingLogger());
    try {
      events().push({ op: 'reported', path: lock.path });
      expect(lock.path).toBe(lockPath(out));
      const linked = firstIndex(
        'the lock linked into place',
        (event) => event.op === 'link' && event.to === lock.path,
      );
      expectFolderFlushedBetween(dirname(lock.path), linked, events().length - 1);
    } finally {
      await lock.release();
    }
  });

  it('without hard links: flushed after the lock is created in place, before it is reported created', async () => {
    trace.events.length = 0;
    trace.noHardLinks = true;
    try {
      await mkdir(join(dir.path, 'state'), { recursive: true });
      const path = join(dir.path, 'state', 'lock');
      expect(await createPrivateFileExclusively(path, 'mine\n')).toBe(true);
      events().push({ op: 'reported', path });
      firstIndex('the hard link refused', (event) => event.op === 'link-refused' && event.to === path);
      const created = firstIndex(
        'the lock created in place',
        (event) => event.op === 'create' && event.path === path,
      );
      expectFolderFlushedBetween(dirname(path), created, events().length - 1);
      expect(await readFile(path, 'utf8')).toBe('mine\n');
    } finally {
      trace.noHardLinks = false;
    }
  });
});

describe('a folder a run makes is flushed into its parent, top-down, before anything in it is relied on', () => {
  /**
   * The end of the first flush of `folder`'s parent that started after `folder` was made: it must
   * be there, and before `before`.
   */
  function expectMadeDurableBefore(folder: string, before: number, what: string): number {
    const all = events();
    const made = firstIndex(`${folder} made`, (event) => event.op === 'mkdir' && event.path === folder);
    const parent = dirname(folder);
    const start = all.findIndex(
      (event, index) => index > made && event.op === 'fsync-start' && event.path === parent,
    );
    expect(start, `a flush of ${parent} after ${folder} was made`).toBeGreaterThanOrEqual(0);
    const { id } = all[start] as { id: number };
    const end = all.findIndex((event) => event.op === 'fsync-end' && event.id === id);
    expect(end, `that flush of ${parent} ended before ${what}`).toBeGreaterThanOrEqual(0);
    expect(end, `that flush of ${parent} ended before ${what}`).toBeLessThan(before);
    return end;
  }

  const flushesOf = (folder: string) =>
    events().filter((event) => event.op === 'fsync-start' && event.path === folder).length;

  it('redact: the output folder, .vredact and each mirrored subfolder, before the lock, the journal and a publish', async () => {
    trace.events.length = 0;
    await mkdir(join(dir.path, 'in', 'a', 'b'), { recursive: true });
    await writeFile(join(dir.path, 'in', 'a', 'b', 'x.wav'), makeWav(0.5));
    await writeFile(join(dir.path, 'in', 'y.wav'), makeWav(0.5));
    // Two levels of -o that are not there: both are made.
    const { code, said } = await redactInto(join('made', 'out'));
    expect(code, said).toBe(0);
    const made = join(dir.path, 'made');
    const out = join(made, 'out');
    const state = join(out, '.vredact');
    const lockLinked = firstIndex(
      'the lock linked',
      (event) => event.op === 'link' && event.to === lockPath(out),
    );
    const firstLine = firstIndex(
      'the journal’s first line',
      (event) => event.op === 'write' && event.path.startsWith(state) && event.path.endsWith('.jsonl'),
    );
    const upload = firstIndex('the first upload', (event) => event.op === 'upload');
    const stateReliedOn = Math.min(lockLinked, firstLine, upload);
    const ends = [made, out, state].map((folder) =>
      expectMadeDurableBefore(folder, stateReliedOn, 'the lock, the journal or an upload'),
    );
    // Top-down: a folder's entry is on disk before the entries in it.
    expect(ends).toEqual([...ends].sort((x, y) => x - y));
    const published = firstIndex(
      'the publish of a/b/x.wav',
      (event) => event.op === 'rename' && event.to === join(out, 'a', 'b', 'x.wav'),
    );
    const subEnds = [join(out, 'a'), join(out, 'a', 'b')].map((folder) =>
      expectMadeDurableBefore(folder, published, 'the publish of a/b/x.wav'),
    );
    expect(subEnds[0]).toBeLessThan(subEnds[1] as number);
    expect(await readFile(join(out, 'a', 'b', 'x.wav'))).toHaveLength(makeWav(0.5).length);
  });

  it('redact: once per folder made, not per file; a folder already there is not flushed into its parent', async () => {
    trace.events.length = 0;
    await mkdir(join(dir.path, 'in', 'sub'), { recursive: true });
    for (let i = 0; i < 16; i++) await writeFile(join(dir.path, 'in', 'sub', `f${i}.wav`), makeWav(0.5));
    await mkdir(join(dir.path, 'there'));
    const { code, said } = await redactInto('there');
    expect(code, said).toBe(0);
    const out = join(dir.path, 'there');
    // `there` was there: its parent is never flushed. `.vredact` and `sub` were made in it: at most
    // one flush each (they may share one), whatever the number of outputs.
    expect(flushesOf(dir.path)).toBe(0);
    expect(flushesOf(out)).toBeGreaterThanOrEqual(1);
    expect(flushesOf(out)).toBeLessThanOrEqual(2);
    // The outputs' own folder: at most one flush per output, as group commit has always given.
    expect(flushesOf(join(out, 'sub'))).toBeLessThanOrEqual(16);
    const madeInOut = events().filter((event) => event.op === 'mkdir' && dirname(event.path) === out);
    expect(madeInOut).toHaveLength(2);
  });

  it('download -o: the folders made are on disk before any file in them is reported, with 8 at once', async () => {
    trace.events.length = 0;
    const outDir = join(dir.path, 'dl', 'new');
    const names = Array.from({ length: 12 }, (_, i) => `f${i}.wav`);
    const client = {
      downloadJobFile: <T>(_jobId: string, fileName: string, sink: BodySink<T>) => {
        const bytes = resultWav(2 * (100 + names.indexOf(fileName))); // a whole WAV each, as download keeps no other
        return sink({ body: Readable.from([bytes]), contentLength: bytes.length, contentType: 'audio/wav' });
      },
    };
    const reported: number[] = [];
    await downloadFiles(
      {
        client,
        concurrency: 8,
        signals: createInterruptController().signals,
        onOutcome: (outcome) => {
          expect(outcome.status).toBe('downloaded');
          events().push({ op: 'reported', path: outcome.path as string });
          reported.push(events().length - 1);
        },
      },
      {
        jobId: 'job1',
        outDir,
        overwrite: false,
        source: async (sink) => {
          for (const fileName of names) sink.add({ fileName, duration: null });
        },
      },
    );
    expect(reported).toHaveLength(names.length);
    const firstReported = Math.min(...reported);
    const ends = [dirname(outDir), outDir].map((folder) =>
      expectMadeDurableBefore(folder, firstReported, 'the first file reported'),
    );
    expect(ends[0]).toBeLessThan(ends[1] as number);
    // Made once each, each flushed into its parent once, whatever the number of files.
    expect(flushesOf(dir.path)).toBe(1);
    expect(flushesOf(dirname(outDir))).toBe(1);
  });
});
