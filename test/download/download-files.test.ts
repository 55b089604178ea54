import { mkdir, readdir, readFile, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { ApiClient } from '../../src/api/client.js';
import { systemClock } from '../../src/clock.js';
import {
  CASE_CLASH_REASON,
  type DownloadDeps,
  downloadFiles,
  type DownloadOutcome,
  type DownloadRequest,
  FILE_ROOM,
  FOLDER_IN_PLACE_REASON,
  type FileWriter,
  INTERRUPTED_NOT_STARTED_REASON,
  NO_ROOM_NOT_STARTED_REASON,
  NOT_STARTED_REASON,
} from '../../src/download/download-files.js';
import { NoRoomOnDisk, OutputSpace } from '../../src/fs/free-space.js';
import { writeFileAtomically } from '../../src/fs/atomic-write.js';
import { LocalFsError } from '../../src/fs/errors.js';
import { downloadSizeCap } from '../../src/download/size-cap.js';
import { silentLogger } from '../../src/output/logger.js';
import { tempDirPerTest } from '../helpers/cli.js';
import { type FileServer, startFileHost } from '../helpers/file-host.js';
import { resultWav, streamingWavHead } from '../helpers/result-wav.js';
import { expectFileBytes } from '../helpers/same-bytes.js';

const dir = tempDirPerTest('vredact-download-');
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

async function setUp(files: Record<string, Buffer>, refuseToken = false, serveFile?: FileServer) {
  const server = await startFileHost(files, serveFile, refuseToken);
  const client = new ApiClient({
    baseUrl: new URL(server.baseUrl),
    token: 'vr_test_token',
    timeoutMs: 10_000,
    maxRetries: 4,
    clock: { ...systemClock, sleep: async () => {} },
    log: silentLogger,
    userAgent: 'vredact-test',
  });
  cleanups.push(
    () => client.close(),
    () => server.close(),
  );
  return { server, client };
}

const errno = (code: string) => Object.assign(new Error(`${code}: injected`), { code });

/** A writer that fails with `code` for the files named, and writes the others as usual. */
function failingFor(code: string, names: string[]): FileWriter {
  return async (path, body, signal) => {
    if (names.some((name) => path.endsWith(`/${name}`))) {
      for await (const chunk of body) void chunk; // read some of the body, as a real write would
      throw errno(code);
    }
    return writeFileAtomically(path, body, signal);
  };
}

/** A whole WAV of `n` bytes of audio (44 more in all). */
const wav = (n: number) => resultWav(n);

/**
 * downloadFiles over `fileNames`, handed as a listing would hand them (with `durations`), `signal`
 * standing for both interrupts; the outcomes gathered in the order of the names, as the assertions
 * read them (they settle in any order).
 */
async function fetchFiles(
  deps: Omit<DownloadDeps, 'signals'> & { signal: AbortSignal },
  request: Omit<DownloadRequest, 'source'> & {
    fileNames: string[];
    durations?: ReadonlyMap<string, number | null>;
  },
) {
  const { signal, ...rest } = deps;
  const { fileNames, durations, ...common } = request;
  const outcomes: DownloadOutcome[] = [];
  const result = await downloadFiles(
    {
      ...rest,
      signals: { stop: signal, abort: signal },
      onOutcome: (outcome) => {
        outcomes.push(outcome);
        return deps.onOutcome?.(outcome);
      },
    },
    {
      ...common,
      source: async (sink) => {
        for (const fileName of fileNames) sink.add({ fileName, duration: durations?.get(fileName) ?? null });
      },
    },
  );
  outcomes.sort((a, b) => fileNames.indexOf(a.fileName) - fileNames.indexOf(b.fileName));
  return { ...result, outcomes };
}

describe('downloadFiles', () => {
  it('a full disk is a file-system problem naming the path: not fetched again, no new download started', async () => {
    const { server, client } = await setUp({ 'a.wav': wav(5000), 'b.wav': wav(10), 'c.wav': wav(10) });
    const result = await fetchFiles(
      {
        client,
        concurrency: 1,
        signal: new AbortController().signal,
        write: failingFor('ENOSPC', ['a.wav']),
      },
      { jobId: 'job1', fileNames: ['a.wav', 'b.wav', 'c.wav'], outDir: dir.path, overwrite: false },
    );
    expect(result.stoppedBy).toBeInstanceOf(LocalFsError);
    expect((result.stoppedBy as LocalFsError).path).toBe(join(dir.path, 'a.wav'));
    expect(result.outcomes.map((o) => [o.status, o.reason])).toEqual([
      ['failed', `writing ${join(dir.path, 'a.wav')}: no space left on the device (ENOSPC)`],
      ['pending', NOT_STARTED_REASON],
      ['pending', NOT_STARTED_REASON],
    ]);
    expect(server.fileGets('a.wav')).toBe(1);
    expect(server.received.filter((r) => r.method === 'POST')).toHaveLength(1);
    expect(await readdir(dir.path)).toEqual([]);
  });

  it('a file that cannot be written for itself alone (permissions) fails alone; the others go on', async () => {
    const { server, client } = await setUp({ 'a.wav': wav(10), 'b.wav': wav(20) });
    const result = await fetchFiles(
      {
        client,
        concurrency: 1,
        signal: new AbortController().signal,
        write: failingFor('EACCES', ['a.wav']),
      },
      { jobId: 'job1', fileNames: ['a.wav', 'b.wav'], outDir: dir.path, overwrite: false },
    );
    expect(result.stoppedBy).toBeUndefined();
    expect(result.outcomes.map((o) => o.status)).toEqual(['failed', 'downloaded']);
    expect(result.outcomes[0]?.reason).toMatch(/permission denied/);
    expect(server.fileGets('a.wav')).toBe(1);
    await expectFileBytes(join(dir.path, 'b.wav'), wav(20));
  });

  it('replaces a final symbolic link rather than writing through it; the file outside is untouched', async () => {
    const { client } = await setUp({ 'x.wav': wav(30) });
    const out = join(dir.path, 'out');
    await mkdir(out);
    await writeFile(join(dir.path, 'secret.wav'), 'outside');
    await symlink(join(dir.path, 'secret.wav'), join(out, 'x.wav'));
    const result = await fetchFiles(
      { client, concurrency: 1, signal: new AbortController().signal },
      { jobId: 'job1', fileNames: ['x.wav'], outDir: out, overwrite: true },
    );
    expect(result.outcomes[0]?.status).toBe('downloaded');
    expect(await readFile(join(dir.path, 'secret.wav'), 'utf8')).toBe('outside');
    await expectFileBytes(join(out, 'x.wav'), wav(30));
  });

  it('a folder where a file would go fails that file unfetched, with --overwrite too; the others go on', async () => {
    const { server, client } = await setUp({ 'a.wav': wav(10), 'b.wav': wav(20) });
    await mkdir(join(dir.path, 'a.wav'));
    await writeFile(join(dir.path, 'a.wav', 'inside'), 'kept');
    for (const overwrite of [false, true]) {
      const result = await fetchFiles(
        { client, concurrency: 2, signal: new AbortController().signal },
        { jobId: 'job1', fileNames: ['a.wav', 'b.wav'], outDir: dir.path, overwrite },
      );
      expect(result.outcomes[0]).toEqual({
        fileName: 'a.wav',
        path: join(dir.path, 'a.wav'),
        status: 'failed',
        reason: FOLDER_IN_PLACE_REASON,
      });
      expect(result.outcomes[1]?.status).toBe('downloaded');
    }
    expect(server.fileGets('a.wav')).toBe(0);
    expect(await readFile(join(dir.path, 'a.wav', 'inside'), 'utf8')).toBe('kept');
  });

  it('where the folder ignores letter case, take.wav never replaces the Take.wav just saved: it fails unfetched', async () => {
    const { server, client } = await setUp({ 'Take.wav': wav(10), 'take.wav': wav(20), 'b.wav': wav(30) });
    const result = await fetchFiles(
      { client, concurrency: 2, signal: new AbortController().signal },
      {
        jobId: 'job1',
        fileNames: ['Take.wav', 'take.wav', 'b.wav'],
        outDir: dir.path,
        overwrite: true,
        ignoresCase: true,
      },
    );
    expect(result.outcomes.map((o) => [o.fileName, o.status, o.reason])).toEqual([
      ['Take.wav', 'downloaded', undefined],
      ['take.wav', 'failed', CASE_CLASH_REASON('Take.wav')],
      ['b.wav', 'downloaded', undefined],
    ]);
    expect(server.fileGets('take.wav')).toBe(0);
    expect((await readdir(dir.path)).sort()).toEqual(['Take.wav', 'b.wav']);
    await expectFileBytes(join(dir.path, 'Take.wav'), wav(10));
  });

  it('where the folder keeps case apart, Take.wav and take.wav are both saved', async () => {
    const { client } = await setUp({ 'Take.wav': wav(10), 'take.wav': wav(20) });
    const result = await fetchFiles(
      { client, concurrency: 2, signal: new AbortController().signal },
      {
        jobId: 'job1',
        fileNames: ['Take.wav', 'take.wav'],
        outDir: dir.path,
        overwrite: false,
        ignoresCase: false,
      },
    );
    expect(result.outcomes.map((o) => o.status)).toEqual(['downloaded', 'downloaded']);
    await expectFileBytes(join(dir.path, 'Take.wav'), wav(10));
    await expectFileBytes(join(dir.path, 'take.wav'), wav(20));
  });

  it('a file sent with a Content-Encoding is saved decoded; one that cannot be decoded fails, nothing left', async () => {
    const bytes = Buffer.concat([
      resultWav(0),
      Buffer.from(Array.from({ length: 50_000 }, (_, i) => i % 251)),
    ]);
    bytes.writeUInt32LE(50_000, 40);
    bytes.writeUInt32LE(50_036, 4);
    const encoded: Record<string, [string, Buffer]> = {
      'gzip.wav': ['gzip', gzipSync(bytes)],
      'br.wav': ['br', brotliCompressSync(bytes)],
      'deflate.wav': ['deflate', deflateSync(bytes)],
      'twice.wav': ['deflate, gzip', gzipSync(deflateSync(bytes))],
      'damaged.wav': ['gzip', Buffer.concat([gzipSync(bytes).subarray(0, 200), Buffer.alloc(500, 9)])],
      'unknown.wav': ['zz-unknown', bytes],
      // 64 MiB of zeros in 64 KiB of gzip: bounded by the cap of a 2 s recording, not by the body.
      'bomb.wav': ['gzip', gzipSync(Buffer.concat([streamingWavHead(), Buffer.alloc(64 * 1024 * 1024)]))],
    };
    const serve: FileServer = (name, res) => {
      const [coding, body] = encoded[name] as [string, Buffer];
      res.writeHead(200, { 'content-type': 'audio/wav', 'content-encoding': coding });
      res.end(body);
    };
    const { client } = await setUp({}, false, serve);
    const names = Object.keys(encoded);
    const result = await fetchFiles(
      { client, concurrency: 2, signal: new AbortController().signal },
      {
        jobId: 'job1',
        fileNames: names,
        outDir: dir.path,
        overwrite: false,
        durations: new Map(names.map((name) => [name, 2])),
      },
    );
    const byName = new Map(result.outcomes.map((o) => [o.fileName, o]));
    for (const name of ['gzip.wav', 'br.wav', 'deflate.wav', 'twice.wav']) {
      expect(byName.get(name)).toMatchObject({ status: 'downloaded', bytes: bytes.length });
      await expectFileBytes(join(dir.path, name), bytes);
    }
    expect(byName.get('damaged.wav')?.reason).toMatch(/does not decode as the gzip it was sent as/);
    expect(byName.get('unknown.wav')?.reason).toMatch(
      /Content-Encoding "zz-unknown", which vredact cannot decode/,
    );
    expect(byName.get('bomb.wav')?.reason).toBe(
      `the file was cut off past ${downloadSizeCap(2).bytes} bytes, more than a 2 s recording can need; nothing of it was kept; report the file to the service's operators`,
    );
    expect((await readdir(dir.path)).sort()).toEqual(['br.wav', 'deflate.wav', 'gzip.wav', 'twice.wav']);
  });

  it('a name longer than a file name may be fails unfetched; the others go on', async () => {
    const long = `${'é'.repeat(130)}.wav`; // 130 characters, 264 bytes
    const { server, client } = await setUp({ [long]: wav(10), 'b.wav': wav(20) });
    const result = await fetchFiles(
      { client, concurrency: 2, signal: new AbortController().signal },
      { jobId: 'job1', fileNames: [long, 'b.wav'], outDir: dir.path, overwrite: false },
    );
    expect(result.outcomes.map((o) => [o.status, o.reason])).toEqual([
      [
        'failed',
        "its name is 264 bytes long, more than the 255 a file name may have; report the listing to the service's operators",
      ],
      ['downloaded', undefined],
    ]);
    expect(server.received.filter((r) => r.method === 'POST')).toHaveLength(1);
    expect(server.fileGets(long)).toBe(0);
  });

  it('a refused token stops everything and is thrown, with no per-file outcome reported', async () => {
    const { client } = await setUp({ 'a.wav': wav(10), 'b.wav': wav(10) }, true);
    const reported: string[] = [];
    await expect(
      fetchFiles(
        {
          client,
          concurrency: 2,
          signal: new AbortController().signal,
          onOutcome: (o) => void reported.push(o.fileName),
        },
        { jobId: 'job1', fileNames: ['a.wav', 'b.wav'], outDir: dir.path, overwrite: false },
      ),
    ).rejects.toMatchObject({ exitCode: 3 });
    expect(reported).toEqual([]);
    expect(await readdir(dir.path)).toEqual([]);
  });

  it('an endless body is cut off past the cap its listed duration gives: that file fails, nothing left, the others go on', async () => {
    // A WAV header declaring 0xFFFFFFFF bytes, then 1 MiB chunks until the client hangs up (or 64 MiB
    // are sent, so that a client without a cap finishes, failing the test, rather than fill the disk).
    const endless: FileServer = async (name, res) => {
      if (name !== 'endless.wav') {
        res.writeHead(200, { 'content-type': 'audio/wav' });
        res.end(wav(3000));
        return;
      }
      res.writeHead(200, { 'content-type': 'audio/wav' });
      res.write(streamingWavHead());
      for (let sent = 0; sent < 64 && !res.destroyed; sent++) {
        if (!res.write(Buffer.alloc(1024 * 1024, 3)))
          await new Promise((resolve) => {
            res.once('drain', resolve);
            res.once('close', resolve);
          });
      }
      res.end();
    };
    const { server, client } = await setUp({}, false, endless);
    const result = await fetchFiles(
      { client, concurrency: 2, signal: new AbortController().signal },
      {
        jobId: 'job1',
        fileNames: ['endless.wav', 'fine.wav'],
        outDir: dir.path,
        overwrite: false,
        durations: new Map([
          ['endless.wav', 2],
          ['fine.wav', 2],
        ]),
      },
    );
    const cap = downloadSizeCap(2).bytes;
    expect(result.outcomes).toEqual([
      {
        fileName: 'endless.wav',
        path: join(dir.path, 'endless.wav'),
        status: 'failed',
        reason: `the file was cut off past ${cap} bytes, more than a 2 s recording can need; nothing of it was kept; report the file to the service's operators`,
      },
      {
        fileName: 'fine.wav',
        path: join(dir.path, 'fine.wav'),
        status: 'downloaded',
        bytes: wav(3000).length,
      },
    ]);
    expect(await readdir(dir.path)).toEqual(['fine.wav']);
    expect(server.fileGets('endless.wav')).toBe(1);
  });

  it('a file announced past its cap fails before anything is written', async () => {
    const { client } = await setUp({}, false, (_name, res) => {
      res.writeHead(200, { 'content-type': 'audio/wav', 'content-length': String(50 * 1024 * 1024) });
      res.end(Buffer.alloc(50 * 1024 * 1024, 7));
    });
    const result = await fetchFiles(
      { client, concurrency: 1, signal: new AbortController().signal },
      {
        jobId: 'job1',
        fileNames: ['big.wav'],
        outDir: dir.path,
        overwrite: false,
        durations: new Map([['big.wav', 1]]),
      },
    );
    expect(result.outcomes[0]?.status).toBe('failed');
    expect(result.outcomes[0]?.reason).toMatch(
      /^the file is announced at 52428800 bytes, more than a 1 s recording can need/,
    );
    expect(await readdir(dir.path)).toEqual([]);
  });

  it('an interrupt before the start downloads nothing, and reports each file pending, not started, once', async () => {
    const { server, client } = await setUp({ 'a.wav': wav(10), 'b.wav': wav(10) });
    const interrupt = new AbortController();
    interrupt.abort();
    const result = await fetchFiles(
      { client, concurrency: 1, signal: interrupt.signal },
      { jobId: 'job1', fileNames: ['a.wav', 'b.wav', 'a.wav'], outDir: dir.path, overwrite: false },
    );
    expect(result.interrupted).toBe(true);
    expect(server.received).toHaveLength(0);
    expect(result.outcomes.map((o) => [o.fileName, o.status, o.reason])).toEqual([
      ['a.wav', 'pending', INTERRUPTED_NOT_STARTED_REASON],
      ['b.wav', 'pending', INTERRUPTED_NOT_STARTED_REASON],
    ]);
  });
});

describe('downloadFiles: room on the output disk', () => {
  const MiB = 1024 * 1024;

  it('a file whose listed duration does not fit is not asked for, and nothing after it starts', async () => {
    const { server, client } = await setUp({ 'a.wav': wav(10), 'b.wav': wav(10), 'c.wav': wav(10) });
    // 1 MiB kept free and 200 KiB more: a 1 s file (about 96 KiB) fits, a 7 s one (283 KiB) does not.
    const space = new OutputSpace(FILE_ROOM, () => MiB + 200 * 1024);
    const result = await fetchFiles(
      { client, concurrency: 1, signal: new AbortController().signal, space },
      {
        jobId: 'job1',
        fileNames: ['a.wav', 'b.wav', 'c.wav'],
        durations: new Map([
          ['a.wav', 1],
          ['b.wav', 7],
          ['c.wav', 1],
        ]),
        outDir: dir.path,
        overwrite: false,
      },
    );
    expect(result.stoppedBy).toBeInstanceOf(NoRoomOnDisk);
    expect(result.outcomes.map((o) => [o.status, o.reason])).toEqual([
      ['downloaded', undefined],
      [
        'failed',
        expect.stringMatching(/^not enough free space for the next file: .* b\.wav needs about 283 KiB/),
      ],
      ['pending', NO_ROOM_NOT_STARTED_REASON],
    ]);
    expect(server.fileGets('a.wav')).toBe(1);
    expect(server.received.filter((r) => r.method === 'POST')).toHaveLength(1);
    expect(await readdir(dir.path)).toEqual(['a.wav']);
  });

  it('a file announced past the room left is not written, and nothing after it starts', async () => {
    const { server, client } = await setUp({ 'a.wav': wav(300 * 1024), 'b.wav': wav(10) });
    const space = new OutputSpace(FILE_ROOM, () => MiB + 200 * 1024);
    const result = await fetchFiles(
      { client, concurrency: 1, signal: new AbortController().signal, space },
      { jobId: 'job1', fileNames: ['a.wav', 'b.wav'], outDir: dir.path, overwrite: false },
    );
    expect(result.outcomes.map((o) => o.status)).toEqual(['failed', 'pending']);
    expect(result.outcomes[0]?.reason).toMatch(/a\.wav needs about 300 KiB, and 1 MiB is kept free$/);
    expect(result.outcomes[1]?.reason).toBe(NO_ROOM_NOT_STARTED_REASON);
    expect(server.fileGets('a.wav')).toBe(1);
    expect(server.fileGets('b.wav')).toBe(0);
    expect(await readdir(dir.path)).toEqual([]);
  });
});
