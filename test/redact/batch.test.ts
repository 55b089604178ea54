/**
 * The batch in-process, against a scripted fake of the service client: the token gate, interrupts,
 * waiting for jobs without holding upload slots, --wait-timeout and --no-wait.
 */
import { renameSync, rmSync, writeFileSync } from 'node:fs';
import { mkdir, readdir, readFile, realpath, stat, utimes, writeFile } from 'node:fs/promises';
import { basename, join, relative, sep } from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type {
  BodySink,
  JobSink,
  RedactionAnswer,
  ResponseBody,
  UploadOptions,
} from '../../src/api/client.js';
import {
  ConnectionError,
  errorForStatus,
  InternalServerError,
  NotFoundError,
  PermissionDeniedError,
} from '../../src/api/errors.js';
import { LinkMissingError, LinkRefusedError } from '../../src/api/link-errors.js';
import type { JobContentItem } from '../../src/api/schemas.js';
import type { Clock } from '../../src/clock.js';
import { createContext } from '../../src/context.js';
import { LocalFsError } from '../../src/fs/errors.js';
import { runBatch } from '../../src/redact/batch.js';
import { createInterruptController, type InterruptController } from '../../src/interrupt.js';
import { type JournalRecord, journalPath, optionsFingerprint } from '../../src/redact/journal.js';
import { readJournal } from '../../src/redact/journal-read.js';
import { JournalWriter } from '../../src/redact/journal-writer.js';
import { parseRedactOptions } from '../../src/redact/options.js';
import type { RedactClient } from '../../src/redact/engine.js';
import { LOST_LOOKS_MAX } from '../../src/redact/find-accepted.js';
import { LINK_TRIES } from '../../src/redact/link-tries.js';
import { memoryConfigStore } from '../../src/settings/config-store.js';
import { caselessLstat } from '../helpers/caseless.js';
import { tempDirPerTest } from '../helpers/cli.js';
import { makeWav } from '../helpers/mp3.js';

const dir = tempDirPerTest('vredact-pipeline-');

/** Time that passes only when someone sleeps: polling loops run instantly and deterministically. */
function fakeClock(realMsPerSleep = 0): Clock & { elapsed: () => number } {
  let now = 1_000_000;
  return {
    now: () => now,
    random: () => 0.5,
    elapsed: () => now - 1_000_000,
    sleep: async (ms, signal) => {
      signal?.throwIfAborted();
      now += ms;
      if (realMsPerSleep > 0) await new Promise((resolve) => setTimeout(resolve, realMsPerSleep));
      else await new Promise((resolve) => setImmediate(resolve));
    },
  };
}

function deferred<T = void>() {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

function abortable(signal: AbortSignal | undefined, wait: Promise<unknown>): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const onAbort = () => reject(Object.assign(new Error('aborted'), { name: 'AbortError' }));
    if (signal?.aborted) return onAbort();
    signal?.addEventListener('abort', onAbort, { once: true });
    wait.then(resolve, reject);
  });
}

type Behaviour = (name: string, signal?: AbortSignal) => Promise<'sync' | 'job'>;

/** A scripted stand-in of the client: `behaviour` decides per upload, jobs become ready when `ready(jobId)`. */
class FakeClient implements RedactClient {
  uploads: string[] = [];
  /** Called as a large file starts to be read for its upload. */
  beforeRead: ((path: string) => Promise<void>) | undefined;
  /** The bytes handed over with each upload (a small file's bytes as checked), by file name. */
  readonly sentBytes = new Map<string, Buffer>();
  polls = 0;
  downloads: string[] = [];
  /** Every job's upload name, by job id. */
  readonly jobs = new Map<string, string>();
  /** created_at of the jobs (ISO); '' for one not set. */
  readonly created = new Map<string, string>();
  /** audio_duration of the jobs' items; 7 for one not set. */
  readonly durations = new Map<string, number>();
  ready: (jobId: string) => boolean = () => true;
  /** How long a job's result lasts. */
  resultSeconds: (jobId: string) => number = () => 0.1;
  /** The next signed URL is refused (403) as an expired one would be. */
  expireNextLink = false;
  /** GETs of each job's link that its host answers 404, the object not there yet, before the result. */
  missingLinkGets: (jobId: string) => number = () => 0;
  /** GETs of each job's link, by job id. */
  readonly linkGets = new Map<string, number>();
  listCalls = 0;
  /** Thrown by eachJob. */
  listFailure: Error | undefined;
  /** An upload is accepted as a job, then its answer never comes (until aborted): a crash's view. */
  hangAfterAccept = false;
  /** An upload is accepted as a job, then this is thrown instead of the answer (a dropped connection). */
  failAfterAccept: Error | undefined;
  accepted = deferred();
  /** The time of the service's clock, for created_at. */
  now: () => number = () => Date.now();
  constructor(private readonly behaviour: Behaviour = async () => 'sync') {}

  /** Copies the jobs of `other` (the service as a later run finds it). */
  static after(other: FakeClient, behaviour?: Behaviour): FakeClient {
    const later = new FakeClient(behaviour);
    for (const [id, name] of other.jobs) later.addJob(id, name, other.created.get(id) ?? '');
    for (const [id, duration] of other.durations) later.durations.set(id, duration);
    return later;
  }

  addJob(jobId: string, name: string, createdAt: string, duration?: number): void {
    this.jobs.set(jobId, name);
    this.created.set(jobId, createdAt);
    if (duration !== undefined) this.durations.set(jobId, duration);
  }

  async eachJob<S extends JobSink>(makeSink: () => S): Promise<S> {
    this.listCalls++;
    if (this.listFailure) throw this.listFailure;
    const sink = makeSink();
    for (const job_id of this.jobs.keys()) {
      sink.add({ job_id, token: 'vr_test', created_at: this.created.get(job_id) ?? '' });
      await sink.drain?.();
    }
    return sink;
  }

  async redact<T>(
    filePath: string,
    _fields: Readonly<Record<string, string>>,
    uploadName: string,
    sink: BodySink<T>,
    { signal, bytes, onFileSent }: UploadOptions = {},
  ): Promise<RedactionAnswer<T>> {
    const name = filePath.slice(filePath.lastIndexOf('/') + 1);
    this.uploads.push(name);
    if (bytes) this.sentBytes.set(name, Buffer.from(bytes));
    // A large file is read as it is sent, as the real client does.
    else if (onFileSent) {
      await this.beforeRead?.(filePath);
      onFileSent(
        createHash('sha256')
          .update(await readFile(filePath))
          .digest('hex'),
      );
    }
    const kind = await this.behaviour(name, signal);
    if (kind === 'sync') {
      return { kind: 'audio', result: await sink(fakeBody(makeWav(0.1))) };
    }
    const jobId = `job-${this.jobs.size + 1}`;
    // The service lists the upload under the name it carried.
    this.addJob(jobId, uploadName, new Date(this.now()).toISOString());
    if (this.failAfterAccept) throw this.failAfterAccept;
    if (this.hangAfterAccept) {
      this.accepted.resolve();
      await abortable(signal, new Promise(() => {}));
    }
    return { kind: 'job', jobId } as RedactionAnswer<T>;
  }

  async jobContent(jobId: string): Promise<JobContentItem[]> {
    this.polls++;
    const name = this.jobs.get(jobId) ?? 'x.wav';
    const audio_duration = this.durations.get(jobId) ?? 7;
    const items: JobContentItem[] = [
      { id: '1', job_id: jobId, file_name: name, audio_duration, created_at: '' },
    ];
    if (this.ready(jobId)) {
      items.push({
        id: '2',
        job_id: jobId,
        file_name: name.replace(/\.\w+$/, '.redacted.wav'),
        audio_duration,
        created_at: '',
      });
    }
    return items;
  }

  async downloadUrl(jobId: string, fileName: string) {
    return new URL(`https://files.example/${jobId}/${encodeURIComponent(fileName)}`);
  }

  async downloadSigned<T>(url: URL, sink: BodySink<T>) {
    const [, jobId, fileName] = url.pathname.split('/');
    if (this.expireNextLink) {
      this.expireNextLink = false;
      throw new LinkRefusedError('downloading: the download link was refused (403); it may have expired');
    }
    const gets = (this.linkGets.get(jobId ?? '') ?? 0) + 1;
    this.linkGets.set(jobId ?? '', gets);
    if (gets <= this.missingLinkGets(jobId ?? '')) {
      throw new LinkMissingError(
        `downloading ${jobId}: the download link's host files.example:443 answered 404 Not Found`,
        404,
      );
    }
    this.downloads.push(`${jobId}:${decodeURIComponent(fileName ?? '')}`);
    return sink(fakeBody(makeWav(this.resultSeconds(jobId ?? ''))));
  }
}

function fakeBody(bytes: Buffer): ResponseBody {
  return { body: Readable.from([bytes]), contentLength: bytes.length, contentType: 'audio/wav' };
}

async function inputs(count: number): Promise<string[]> {
  const names: string[] = [];
  for (let i = 0; i < count; i++) {
    const name = `in/f${i}.wav`;
    await writeFile(join(dir.path, name), makeWav(0.5)).catch(async () => {
      const { mkdir } = await import('node:fs/promises');
      await mkdir(join(dir.path, 'in'), { recursive: true });
      await writeFile(join(dir.path, name), makeWav(0.5));
    });
    names.push(name);
  }
  return names;
}

async function batch(
  client: RedactClient,
  options: {
    args?: string[];
    concurrency?: number;
    flags?: Record<string, unknown>;
    controller?: InterruptController;
    clock?: Clock;
    /** Target-voice flags (`gender`, `model`, …). */
    voice?: Record<string, string>;
    /** Plain output instead of --json; `tty` makes stdout and stderr terminals. */
    plain?: { tty?: boolean; quiet?: boolean };
    /** Called just before each upload. */
    beforeUpload?: (path: string) => Promise<void>;
    /** How the output folder's names are looked up for its letter case (see fs/letter-case.ts). */
    caseLookup?: typeof caselessLstat;
  } = {},
) {
  const stdout = new PassThrough() as PassThrough & { isTTY?: boolean };
  const stderr = new PassThrough() as PassThrough & { isTTY?: boolean };
  stdout.isTTY = options.plain?.tty;
  stderr.isTTY = options.plain?.tty;
  let out = '';
  let err = '';
  stdout.on('data', (chunk: Buffer) => {
    out += chunk;
  });
  stderr.on('data', (chunk: Buffer) => {
    err += chunk;
  });
  const ctx = await createContext(
    {
      outDir: 'out',
      concurrency: String(options.concurrency ?? 4),
      json: !options.plain,
      quiet: options.plain?.quiet,
      color: false,
      ...options.voice,
    },
    {
      streams: { stdout, stderr, stdin: Readable.from([]) },
      env: {},
      cwd: dir.path,
      config: memoryConfigStore(),
      clock: options.clock ?? fakeClock(),
    },
  );
  const controller = options.controller ?? createInterruptController();
  const code = await runBatch(
    ctx,
    {
      args: options.args ?? ['in'],
      listed: [],
      options: parseRedactOptions({ wait: true, ...options.flags }),
    },
    controller.signals,
    {
      client,
      ...(options.beforeUpload ? { beforeUpload: options.beforeUpload } : {}),
      ...(options.caseLookup ? { caseLookup: options.caseLookup } : {}),
    },
  );
  if (options.plain) return { code, lines: [], outcomes: [], stdout: out, stderr: err };
  const lines = out
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Record<string, unknown>);
  return { code, lines, outcomes: lines.filter((line) => !('summary' in line)), stdout: out, stderr: err };
}

async function outputs(): Promise<string[]> {
  return (await readdir(join(dir.path, 'out')).catch(() => [] as string[]))
    .filter((name) => !name.startsWith('.'))
    .sort();
}

describe('the token gate', () => {
  it('a refused token stops the batch at once: the uploads in flight with it are aborted, nothing new starts', async () => {
    await inputs(6);
    const allIn = deferred();
    const aborted: string[] = [];
    const client: FakeClient = new FakeClient(async (name, signal) => {
      if (client.uploads.length === 4) allIn.resolve();
      if (name === client.uploads[0]) {
        await allIn.promise;
        throw new PermissionDeniedError('redacting: the service answered 403 Forbidden', 403, undefined, 3);
      }
      await abortable(signal, new Promise(() => {})).catch((error: unknown) => {
        aborted.push(name);
        throw error;
      });
      return 'sync';
    });
    const result = await batch(client, { concurrency: 4 });
    expect(result.code).toBe(3);
    expect(client.uploads).toHaveLength(4);
    expect(aborted).toHaveLength(3);
    expect(result.outcomes.filter((line) => line.status === 'failed')).toHaveLength(1);
    expect(result.outcomes.filter((line) => line.status === 'pending')).toHaveLength(5);
    expect(await outputs()).toEqual([]);
  });

  it('stops at once when the token is refused mid-batch: in-flight uploads aborted, nothing new', async () => {
    await inputs(10);
    let n = 0;
    const client = new FakeClient(async (_name, signal) => {
      n++;
      if (n === 1) return 'sync';
      if (n === 4) throw new PermissionDeniedError('revoked', 403, undefined, 3);
      await abortable(signal, new Promise(() => {})); // hangs until aborted
      return 'sync';
    });
    const result = await batch(client, { concurrency: 3 });
    expect(result.code).toBe(3);
    expect(client.uploads).toHaveLength(4);
    expect(await outputs()).toHaveLength(1); // the one answered before the refusal
  });
});

describe('interrupts', () => {
  it('first interrupt: in-flight uploads finish and are recorded, nothing new starts, exit 130; a later run finishes', async () => {
    await inputs(6);
    const controller = createInterruptController();
    const release = deferred();
    const inFlight = deferred();
    const client: FakeClient = new FakeClient(async () => {
      const n: number = client.uploads.length;
      if (n === 1) return 'sync';
      if (n === 3) inFlight.resolve();
      await release.promise;
      return n === 2 ? 'job' : 'sync';
    });
    const running = batch(client, { concurrency: 2, controller });
    await inFlight.promise; // the second and third files are being uploaded
    controller.interrupt();
    release.resolve();
    const result = await running;
    expect(result.code).toBe(130);
    expect(client.uploads).toHaveLength(3);
    const [first, second, third] = client.uploads as [string, string, string];
    const journal = await readJournal(journalPath(join(dir.path, 'out')));
    const events = Object.fromEntries(
      [...journal.latest.values()].map((record) => [record.output, record.event]),
    );
    expect(events).toEqual({ [first]: 'done', [second]: 'submitted', [third]: 'done' });
    expect(client.downloads).toHaveLength(0);
    expect(result.outcomes.find((line) => line.input === `in/${second}`)).toMatchObject({
      status: 'pending',
      jobId: 'job-1',
    });

    const later = new FakeClient(async () => 'sync');
    later.jobs.set('job-1', second);
    const rerun = await batch(later, { concurrency: 2 });
    expect(rerun.code).toBe(0);
    expect(later.uploads).toHaveLength(3); // only the three never sent: nothing sent twice
    expect(later.uploads).not.toContain(first);
    expect(later.uploads).not.toContain(second);
    expect(later.uploads).not.toContain(third);
    expect(later.downloads).toEqual([`job-1:${second.replace('.wav', '.redacted.wav')}`]);
    expect(await outputs()).toEqual(['f0.wav', 'f1.wav', 'f2.wav', 'f3.wav', 'f4.wav', 'f5.wav']);
  });

  it('second interrupt aborts what is in flight and leaves no partial output', async () => {
    await inputs(3);
    const controller = createInterruptController();
    const started = deferred();
    const client = new FakeClient(async (_name, signal) => {
      started.resolve();
      await abortable(signal, new Promise(() => {}));
      return 'sync';
    });
    const running = batch(client, { concurrency: 3, controller });
    await started.promise;
    controller.interrupt();
    controller.interrupt();
    const result = await running;
    expect(result.code).toBe(130);
    expect(result.outcomes.every((line) => line.status === 'pending')).toBe(true);
    expect(await readdir(join(dir.path, 'out')).catch(() => [])).toEqual(['.vredact']);
  });
});

describe('asynchronous jobs', () => {
  it('waits for jobs without holding upload slots', async () => {
    await inputs(3);
    const client = new FakeClient(async () => 'job');
    // A job is ready only once all three files were uploaded: with a single upload slot, that can
    // only happen if waiting for the first job does not hold the slot.
    client.ready = () => client.uploads.length === 3;
    // The fake clock polls while the uploads do real file I/O and flushes: each poll takes a real
    // millisecond, and a wait that cannot run out keeps the test about slots, not about how many
    // event-loop turns a flush takes on a given Node.
    const result = await batch(client, {
      concurrency: 1,
      clock: fakeClock(1),
      flags: { waitTimeout: '1000h' },
    });
    expect(result.code).toBe(0);
    expect(client.downloads).toHaveLength(3);
    expect(await outputs()).toEqual(['f0.wav', 'f1.wav', 'f2.wav']);
  });

  it('leaves jobs pending after --wait-timeout, with exit 1, and the journal still knows them', async () => {
    await inputs(2);
    const client = new FakeClient(async () => 'job');
    client.ready = () => false;
    const clock = fakeClock();
    const result = await batch(client, { flags: { waitTimeout: '90s' }, clock });
    expect(result.code).toBe(1);
    expect(result.outcomes.map((line) => line.status)).toEqual(['pending', 'pending']);
    expect(result.outcomes[0]?.jobId).toMatch(/^job-/);
    expect(clock.elapsed()).toBeGreaterThanOrEqual(90_000);
    expect(client.polls).toBeGreaterThan(2);
    const journal = await readJournal(journalPath(join(dir.path, 'out')));
    expect([...journal.latest.values()].every((record) => record.event === 'submitted')).toBe(true);
  });

  it('sends a new file while jobs wait: jobs met when every waiter is busy are waited for after', async () => {
    // More jobs than are waited for at once plus the queue to them, all listed before the new file.
    await inputs(330);
    const first = new FakeClient(async () => 'job');
    expect((await batch(first, { flags: { wait: false } })).code).toBe(0);
    await writeFile(join(dir.path, 'in', 'zz.wav'), makeWav(0.5));
    const client = new FakeClient(async () => 'sync');
    for (const [id, name] of first.jobs) client.jobs.set(id, name);
    // The jobs finish only once the new file is uploaded: queued behind them, it never would be.
    client.ready = () => client.uploads.length > 0;
    const result = await batch(client, { clock: fakeClock(1), flags: { waitTimeout: '1000h' } });
    expect(result.code).toBe(0);
    expect(client.uploads).toEqual(['zz.wav']);
    expect(client.downloads).toHaveLength(330);
    expect(result.outcomes.filter((line) => line.status === 'done')).toHaveLength(331);
  });

  it('--no-wait submits and exits 0; a later run collects without uploading again', async () => {
    await inputs(3);
    const client = new FakeClient(async () => 'job');
    const first = await batch(client, { flags: { wait: false } });
    expect(first.code).toBe(0);
    // One look at the first job, which the service confirms: a host naming jobs would be found out.
    expect(client.polls).toBe(1);
    expect(first.outcomes.every((line) => line.status === 'pending' && line.jobId)).toBe(true);
    expect(await outputs()).toEqual([]);

    const later = new FakeClient(async () => 'sync');
    for (const [id, name] of client.jobs) later.jobs.set(id, name);
    const second = await batch(later);
    expect(second.code).toBe(0);
    expect(later.uploads).toHaveLength(0);
    expect(later.downloads).toHaveLength(3);
    expect(await outputs()).toEqual(['f0.wav', 'f1.wav', 'f2.wav']);
    const third = await batch(later);
    expect(third.outcomes.every((line) => line.status === 'skipped')).toBe(true);
  });

  it('takes a refused download link for an expired one, not for a refused token', async () => {
    await inputs(2);
    const client = new FakeClient(async () => 'job');
    client.expireNextLink = true;
    const result = await batch(client);
    expect(result.code).toBe(0);
    expect(client.downloads).toHaveLength(2);
    expect(await outputs()).toEqual(['f0.wav', 'f1.wav']);
  });

  it("fetches a listed result again while its link's host answers 404: done, each file sent once", async () => {
    await inputs(2);
    const client = new FakeClient(async () => 'job');
    client.missingLinkGets = () => LINK_TRIES - 1;
    const result = await batch(client);
    expect(result.code).toBe(0);
    expect(result.outcomes.map((line) => line.status)).toEqual(['done', 'done']);
    expect(client.uploads).toHaveLength(2);
    expect([...client.linkGets.values()]).toEqual([LINK_TRIES, LINK_TRIES]);
    expect(await outputs()).toEqual(['f0.wav', 'f1.wav']);
  });

  it("fails a result whose link's host answers 404 to every try, saying how many", async () => {
    await inputs(2);
    const client = new FakeClient(async () => 'job');
    client.missingLinkGets = () => Infinity;
    const result = await batch(client, { flags: { waitTimeout: '1000h' } });
    expect(result.code).toBe(1);
    for (const line of result.outcomes) {
      expect(line).toMatchObject({
        status: 'failed',
        reason: expect.stringMatching(/answered 404 Not Found \(tried 3 times, a new link each time\)$/),
      });
    }
    expect([...client.linkGets.values()]).toEqual([LINK_TRIES, LINK_TRIES]);
    expect(await outputs()).toEqual([]);
  });

  it('--wait-timeout bounds the tries of a link whose host answers 404: pending, its last error said', async () => {
    await inputs(1);
    const client = new FakeClient(async () => 'job');
    client.missingLinkGets = () => Infinity;
    // Listed at the second poll (0.5 s in, the fake clock's jitter halving each backoff), tried again
    // at 1 s, where the wait ends: two tries of the three.
    client.ready = () => client.polls >= 2;
    const result = await batch(client, { flags: { waitTimeout: '1s' } });
    expect(result.code).toBe(1);
    expect(result.outcomes[0]).toMatchObject({
      status: 'pending',
      reason: expect.stringMatching(/--wait-timeout.*last error: .*answered 404 Not Found\)$/),
    });
    expect([...client.linkGets.values()]).toEqual([2]);
  });

  it("--no-wait leaves an earlier job whose link's host answers 404 pending, for a later run to try", async () => {
    await inputs(1);
    const first = new FakeClient(async () => 'job');
    first.ready = () => false;
    expect((await batch(first, { flags: { wait: false } })).code).toBe(0);
    const later = FakeClient.after(first);
    later.missingLinkGets = () => 1;
    const looked = await batch(later, { flags: { wait: false } });
    expect(looked.outcomes[0]).toMatchObject({
      status: 'pending',
      reason: expect.stringMatching(
        /404 Not Found; no result at its link at 1 of 3 tries \(it may not have reached the link yet\): a later run tries again$/,
      ),
    });
    expect(later.uploads).toHaveLength(0);
    const collected = await batch(later);
    expect(collected.code).toBe(0);
    expect(collected.outcomes[0]).toMatchObject({ status: 'done' });
    expect(later.uploads).toHaveLength(0);
    expect([...later.linkGets.values()]).toEqual([2]);
  });
});

describe('the letter case of a fresh, empty output folder', () => {
  /** The output folder made and empty, as a freshly mounted drive is: no name in it to ask by. */
  async function caseTwins(): Promise<void> {
    await mkdir(join(dir.path, 'out'));
    await mkdir(join(dir.path, 'in'), { recursive: true });
    await writeFile(join(dir.path, 'in', 'A.WAV'), makeWav(0.5));
    await writeFile(join(dir.path, 'in', 'a.wav'), makeWav(0.3));
  }

  it("where it ignores case, A.WAV and a.wav are both rejected before anything is sent: asked of the run's own file", async () => {
    await caseTwins();
    const client = new FakeClient();
    const result = await batch(client, { caseLookup: caselessLstat });
    expect(result.code).toBe(1);
    expect(client.uploads).toEqual([]);
    expect(result.outcomes.map((o) => [o.input, o.status, o.reason])).toEqual([
      ['in/A.WAV', 'rejected', 'same output out/A.wav as in/a.wav; rename one of them'],
      ['in/a.wav', 'rejected', 'same output out/a.wav as in/A.WAV; rename one of them'],
    ]);
    expect(await outputs()).toEqual([]);
  });

  it('where it keeps case apart, both are sent and both saved, and nothing is said of case', async () => {
    await caseTwins();
    const client = new FakeClient();
    const result = await batch(client, { plain: {} });
    expect(result.code).toBe(0);
    expect(client.uploads.sort()).toEqual(['A.WAV', 'a.wav']);
    expect(await outputs()).toEqual(['A.wav', 'a.wav']);
    expect(result.stderr).not.toMatch(/letter case/);
  });

  it('a dry run, which may not write, cannot tell: it sends both by the system default and says the run may reject them', async () => {
    await caseTwins();
    const client = new FakeClient();
    const result = await batch(client, { flags: { dryRun: true }, plain: {}, caseLookup: caselessLstat });
    expect(result.code).toBe(0);
    expect(client.uploads).toEqual([]);
    expect(result.stdout.split('\n').filter(Boolean).sort()).toEqual([
      'would-send\tin/A.WAV\tout/A.wav',
      'would-send\tin/a.wav\tout/a.wav',
    ]);
    expect(result.stderr).toContain(
      'cannot tell before the run whether the output folder out ignores letter case (it has no name to ask yet): where it does (a vfat or exFAT drive, an SMB share), the run rejects 2 input(s) whose outputs differ only in case, such as in/A.WAV and in/a.wav',
    );
    expect(await readdir(join(dir.path, 'out'))).toEqual([]);
  });
});

describe('journal side effects', () => {
  it('redoes done files when the target voice changes, and only then', async () => {
    await inputs(2);
    const client = new FakeClient();
    expect((await batch(client)).code).toBe(0);
    expect((await batch(client)).outcomes.map((line) => line.status)).toEqual(['skipped', 'skipped']);
    expect(client.uploads).toHaveLength(2);
    const changed = await batch(client, { voice: { gender: 'f' } });
    expect(changed.outcomes.map((line) => line.status)).toEqual(['done', 'done']);
    expect(client.uploads).toHaveLength(4);
    expect(
      (await batch(client, { voice: { gender: 'f' } })).outcomes.every((line) => line.status === 'skipped'),
    ).toBe(true);
    const overwrite = await batch(client, { voice: { gender: 'f' }, flags: { overwrite: true } });
    expect(overwrite.outcomes.map((line) => line.status)).toEqual(['done', 'done']);
    expect(client.uploads).toHaveLength(6);
  });

  it('records a failure with its reason and retries it next time', async () => {
    await inputs(1);
    const failing = new FakeClient(async () => {
      throw new Error('the service answered 422: not decodable');
    });
    const first = await batch(failing);
    expect(first.code).toBe(1);
    expect(first.outcomes[0]).toMatchObject({ status: 'failed', reason: expect.stringMatching(/422/) });
    const text = await readFile(journalPath(join(dir.path, 'out')), 'utf8');
    expect(text).toMatch(/"event":"failed"/);
    const ok = new FakeClient(async () => 'sync');
    const second = await batch(ok);
    expect(second.code).toBe(0);
    expect(ok.uploads).toEqual(['f0.wav']);
  });
});

describe('local failures and changed inputs', () => {
  it('a full disk while writing an output stops the batch: nothing new is sent, exit 1 naming the path', async () => {
    await inputs(5);
    const full = join(dir.path, 'out', 'f0.wav');
    let calls = 0;
    const client = new FakeClient(async () => {
      calls++;
      if (calls === 1) throw new LocalFsError(full, 'ENOSPC', 'writing');
      return 'sync';
    });
    const result = await batch(client, { concurrency: 1 });
    expect(result.code).toBe(1);
    expect(client.uploads).toHaveLength(1);
    expect(result.stderr).toMatch(/the batch stopped: writing .*out\/f0\.wav: no space left on the device/);
    expect(result.stderr).not.toMatch(/network/);
    const statuses = result.outcomes.map((line) => line.status).sort();
    expect(statuses).toEqual(['failed', 'pending', 'pending', 'pending', 'pending']);
    // What was in flight is recorded: the failed file is sent again by the next run.
    expect((await readJournal(journalPath(join(dir.path, 'out')))).latest.size).toBe(1);
    const later = new FakeClient(async () => 'sync');
    expect((await batch(later)).code).toBe(0);
    expect(later.uploads).toHaveLength(5);
  });

  it('a lock taken over while the run was paused stops it: nothing more sent, saved or journaled, exit 1', async () => {
    await inputs(6);
    const clock = fakeClock();
    const out = join(dir.path, 'out');
    const lock = join(out, '.vredact', 'lock');
    const theirs = `${JSON.stringify({ pid: 4242, hostname: 'pod-b-7f9c2', startedAt: new Date(clock.now() + 660_000).toISOString(), id: 'b', refreshMs: 30_000 })}\n`;
    let resumedAt = 0;
    const client = new FakeClient(async () => {
      if (client.uploads.length === 1) {
        // The process is paused for 11 min during its first upload (its clock jumps), and another
        // host's run takes the lock over meanwhile, as acquireLock does: all in one turn.
        renameSync(lock, `${lock}.aside`);
        rmSync(`${lock}.aside`);
        writeFileSync(lock, theirs);
        void clock.sleep(660_000);
        resumedAt = clock.now();
      }
      return 'sync';
    });
    const result = await batch(client, { concurrency: 1, clock });
    expect(result.code).toBe(1);
    expect(client.uploads).toHaveLength(1);
    expect(await outputs()).toEqual([]);
    expect(await readFile(lock, 'utf8')).toBe(theirs);
    const written = (await readFile(journalPath(out), 'utf8')).split('\n').filter(Boolean);
    expect(
      written.filter((line) => Date.parse((JSON.parse(line) as { at: string }).at) >= resumedAt),
    ).toEqual([]);
    expect(result.stderr).toMatch(
      /^error: the batch stopped: the lock of the output folder .*out was taken over by another run \(pid 4242 on pod-b-7f9c2, at .*\) while this run went 11 min without refreshing it/m,
    );
    expect(result.outcomes.map((line) => line.status)).toEqual(Array(6).fill('pending'));
    expect(result.outcomes[0]).toMatchObject({
      reason: 'not finished: the batch stopped: another run took over the lock',
    });
  });

  it('hands a small input to the upload as the bytes it checked, and journals their hash', async () => {
    await inputs(2);
    const client = new FakeClient(async () => 'sync');
    const result = await batch(client);
    expect(result.code).toBe(0);
    const journal = (await readJournal(journalPath(join(dir.path, 'out')))).latest;
    for (const name of ['f0.wav', 'f1.wav']) {
      const path = join(dir.path, 'in', name);
      const onDisk = await readFile(path);
      expect(client.sentBytes.get(name)?.equals(onDisk)).toBe(true);
      expect(journal.get(await realpath(path))).toMatchObject({
        event: 'done',
        inputSha256: createHash('sha256').update(onDisk).digest('hex'),
      });
    }
  });

  it('fails a large input whose bytes changed while they were sent, keeping no output', async () => {
    await inputs(1);
    const big = join(dir.path, 'in', 'big.wav');
    // 20 s in 320 KB: over 256 KiB, so streamed, not kept from the check.
    const bigWav = () => makeWav(20);
    await writeFile(big, bigWav());
    const client = new FakeClient(async () => 'sync');
    client.beforeRead = async (path) => {
      if (path === big) await writeFile(big, bigWav().fill(1, 4096, 8192));
    };
    // The fake's results last 0.1 s: a wide tolerance lets this one through to the identity check.
    const result = await batch(client, { flags: { durationTolerance: '30s' } });
    expect(result.code).toBe(1);
    const byInput = Object.fromEntries(result.outcomes.map((line) => [line.input, line]));
    expect(byInput['in/big.wav']).toMatchObject({
      status: 'failed',
      reason: expect.stringMatching(/changed while it was being sent/),
    });
    expect(byInput['in/f0.wav']).toMatchObject({ status: 'done' });
    expect(await outputs()).toEqual(['f0.wav']);
  });

  it('checks an input again when it changed between its check and its upload', async () => {
    await inputs(2);
    const client = new FakeClient(async () => 'sync');
    const replaced = new Set<string>();
    const result = await batch(client, {
      concurrency: 1,
      beforeUpload: async (path) => {
        if (replaced.has(path)) return;
        replaced.add(path);
        // f0 becomes a text file; f1 another, longer recording.
        if (path.endsWith('f0.wav')) await writeFile(path, 'not audio at all, but twenty-four+ bytes');
        else await writeFile(path, makeWav(1));
      },
    });
    expect(result.code).toBe(1);
    expect(client.uploads).toEqual(['f1.wav']);
    const byInput = Object.fromEntries(result.outcomes.map((line) => [line.input, line]));
    expect(byInput['in/f0.wav']).toMatchObject({
      status: 'rejected',
      reason: expect.stringMatching(/not a WAV/),
    });
    expect(byInput['in/f1.wav']).toMatchObject({ status: 'done' });
    const f1 = (await readJournal(journalPath(join(dir.path, 'out')))).latest.get(
      await realpath(join(dir.path, 'in', 'f1.wav')),
    );
    const sha = createHash('sha256')
      .update(await readFile(join(dir.path, 'in', 'f1.wav')))
      .digest('hex');
    expect(f1).toMatchObject({ event: 'done', inputSha256: sha, size: makeWav(1).length });
    expect(f1?.outputSha256).toMatch(/^[0-9a-f]{64}$/);
  });

  it('with --min-age, leaves an input modified between its check and its upload for a later run', async () => {
    await inputs(2);
    // The run starts at a fixed instant; every time below is set from it, none read from the clock.
    const startedMs = Math.floor(Date.now() / 1000) * 1000;
    const clock = { ...fakeClock(), now: () => startedMs };
    const old = new Date(startedMs - 2 * 3600_000);
    for (const name of ['f0.wav', 'f1.wav']) await utimes(join(dir.path, 'in', name), old, old);
    const client = new FakeClient(async () => 'sync');
    const touched = new Set<string>();
    const result = await batch(client, {
      concurrency: 1,
      clock,
      flags: { minAge: '1h' },
      beforeUpload: async (path) => {
        if (!path.endsWith('f0.wav') || touched.has(path)) return;
        touched.add(path);
        // A recorder appends to f0 after its check: 10 s old at the run's start, under the hour.
        await writeFile(path, makeWav(1));
        const recent = new Date(startedMs - 10_000);
        await utimes(path, recent, recent);
      },
    });
    expect(result.code).toBe(0);
    expect(client.uploads).toEqual(['f1.wav']);
    const byInput = Object.fromEntries(result.outcomes.map((line) => [line.input, line]));
    expect(byInput['in/f0.wav']).toEqual({
      input: 'in/f0.wav',
      output: 'out/f0.wav',
      status: 'skipped',
      reason: 'modified 10 s ago, under --min-age 1h: left for a later run',
      tooRecent: true,
    });
    expect(byInput['in/f1.wav']).toMatchObject({ status: 'done' });
    expect(result.lines.at(-1)).toEqual({
      summary: { done: 1, skipped: 1, rejected: 0, failed: 0, pending: 0, tooRecent: 1 },
    });
    expect(await outputs()).toEqual(['f1.wav']);
    // Its `uploading` line was withdrawn: the journal has nothing of f0 that a later run would trust.
    const f0 = (await readJournal(journalPath(join(dir.path, 'out')))).latest.get(
      await realpath(join(dir.path, 'in', 'f0.wav')),
    );
    expect(f0?.event).not.toBe('uploading');
    expect(f0?.event).not.toBe('done');
  });
});

describe('what the user sees', () => {
  async function mixed() {
    await inputs(2);
    await writeFile(join(dir.path, 'in', 'bad.wav'), 'not audio');
  }

  it('prints one tab-separated line per file on stdout and a summary line on stderr when not on a terminal', async () => {
    await mixed();
    const result = await batch(new FakeClient(), { plain: {} });
    expect(result.code).toBe(1);
    expect(result.stdout.split('\n').filter(Boolean).sort()).toEqual([
      'done\tin/f0.wav\tout/f0.wav',
      'done\tin/f1.wav\tout/f1.wav',
      'rejected\tin/bad.wav\tnot a WAV or MP3 file',
    ]);
    expect(result.stderr).toMatch(
      /^redacted 2, skipped 0 \(already done\), rejected 1, failed 0, pending 0$/m,
    );
    expect(result.stderr).not.toMatch(/\u001b\[/); // no animation
  });

  it('journals a rejection once: a re-run that rejects the file for the same reason adds no line', async () => {
    await mixed();
    await batch(new FakeClient(), { plain: {} });
    const lines = async () => (await readFile(journalPath(join(dir.path, 'out')), 'utf8')).split('\n');
    const after = (await lines()).length;
    const again = await batch(new FakeClient(), { plain: {} });
    expect(again.stdout).toMatch(/^rejected\tin\/bad\.wav\tnot a WAV or MP3 file$/m);
    expect((await lines()).length).toBe(after);
  });

  it('prints only the problems with --quiet', async () => {
    await mixed();
    const result = await batch(new FakeClient(), { plain: { quiet: true } });
    expect(result.stdout).toBe('rejected\tin/bad.wav\tnot a WAV or MP3 file\n');
    expect(result.stderr).toBe('');
  });

  it('prints a line of counts and the problem files on a terminal', async () => {
    await mixed();
    const result = await batch(new FakeClient(), { plain: { tty: true } });
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('rejected  in/bad.wav  not a WAV or MP3 file\n');
    expect(result.stderr).toMatch(/redacted 2, skipped 0 \(already done\), rejected 1, failed 0, pending 0/);
  });
});

describe('interrupted uploads', () => {
  const T = Date.parse('2026-11-21T02:00:00.000Z');
  const iso = (ms: number) => new Date(ms).toISOString();
  const MINUTE = 60_000;

  /** Appends a record of `rel` (an input under `in/`) to the journal, as a run would. */
  async function record(rel: string, at: number, fields: Partial<JournalRecord>): Promise<void> {
    const input = await realpath(join(dir.path, rel));
    const info = await stat(input);
    const writer = await JournalWriter.open(journalPath(join(dir.path, 'out')));
    await writer.append(
      {
        at: iso(at),
        event: 'uploading',
        input,
        size: info.size,
        mtimeMs: info.mtimeMs,
        options: optionsFingerprint({}),
        output: relative(join(dir.path, 'in'), input).split(sep).join('/'),
        uploadName: basename(rel),
        ...fields,
      },
      true,
    );
    await writer.close();
  }

  /** What a run killed while uploading `rel` leaves in the journal. */
  const uploadingRecord = (rel: string, at: number, durationSec?: number, uploadName?: string) =>
    record(rel, at, {
      ...(durationSec === undefined ? {} : { durationSec }),
      ...(uploadName === undefined ? {} : { uploadName }),
    });

  /** The journal's records of one input, in order. */
  async function recordsOf(rel: string): Promise<JournalRecord[]> {
    const input = await realpath(join(dir.path, rel));
    const text = await readFile(journalPath(join(dir.path, 'out')), 'utf8');
    return text
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as JournalRecord)
      .filter((record) => record.input === input);
  }

  it('collects the job an upload became when the run died before its answer: nothing is sent again', async () => {
    await inputs(1);
    const clock = fakeClock();
    const first = new FakeClient(async () => 'job');
    first.hangAfterAccept = true;
    first.now = clock.now;
    const controller = createInterruptController();
    const running = batch(first, { controller, clock });
    await first.accepted.promise; // the service made the job; its id never reaches the journal
    controller.interrupt();
    controller.interrupt();
    const killed = await running;
    expect(killed.code).toBe(130);
    expect((await recordsOf('in/f0.wav')).map((record) => record.event)).toEqual(['uploading']);

    const later = FakeClient.after(first);
    const rerun = await batch(later, { clock });
    expect(rerun.code).toBe(0);
    expect(later.uploads).toEqual([]);
    expect(later.listCalls).toBe(1);
    expect(later.downloads).toEqual([expect.stringMatching(/^job-1:f0\.[0-9a-f]{8}\.redacted\.wav$/)]);
    expect(rerun.outcomes).toEqual([
      { input: 'in/f0.wav', output: 'out/f0.wav', status: 'done', jobId: 'job-1' },
    ]);
    const records = await recordsOf('in/f0.wav');
    expect(records.map((record) => record.event)).toEqual(['uploading', 'submitted', 'done']);
    expect(records[1]).toMatchObject({
      jobId: 'job-1',
      uploadName: records[0]?.uploadName,
      reconciled: true,
    });
    expect(records[0]?.uploadName).toMatch(/^f0\.[0-9a-f]{8}\.wav$/);
    expect(await outputs()).toEqual(['f0.wav']);
  });

  it('an upload whose connection dropped after the service took it is found in the same run, not sent again', async () => {
    await inputs(1);
    const clock = fakeClock();
    const client = new FakeClient(async () => 'job');
    client.now = clock.now;
    client.failAfterAccept = new ConnectionError('redacting f0.wav: network error (ECONNRESET)', false);
    const run = await batch(client, { clock });
    expect(run.code).toBe(0);
    expect(run.outcomes).toEqual([expect.objectContaining({ status: 'done', jobId: 'job-1' })]);
    expect(client.uploads).toEqual(['f0.wav']);
    // One look, a few seconds after the failure: the rest of the run was done by then.
    expect(client.listCalls).toBe(1);
    const records = await recordsOf('in/f0.wav');
    expect(records.map((record) => record.event)).toEqual(['uploading', 'uploading', 'submitted', 'done']);
    expect(records[1]).toMatchObject({ uploadName: records[0]?.uploadName, answerLost: true });
    expect(records[2]).toMatchObject({
      jobId: 'job-1',
      uploadName: records[0]?.uploadName,
      reconciled: true,
    });
    expect(await outputs()).toEqual(['f0.wav']);
  });

  it(`looks for at most ${LOST_LOOKS_MAX} uploads whose answer was lost at once; those beyond fail unsent, and the next run finds their jobs`, async () => {
    const files = LOST_LOOKS_MAX + 6;
    await inputs(files);
    const clock = fakeClock();
    const held = deferred();
    // The listing of the first look waits until every upload has failed: no look ends and no wait is
    // given up meanwhile, so the uploads looked for at once are all those that joined.
    class HeldListing extends FakeClient {
      override async eachJob<S extends JobSink>(makeSink: () => S): Promise<S> {
        await held.promise;
        return super.eachJob(makeSink);
      }
    }
    const client = new HeldListing(async () => 'job');
    client.now = clock.now;
    client.failAfterAccept = new ConnectionError('redacting: network error (ECONNRESET)', false);
    const lookedFor = async () =>
      (await readFile(journalPath(join(dir.path, 'out')), 'utf8'))
        .split('\n')
        .filter((line) => line.includes('"answerLost":true')).length;
    const running = batch(client, { clock });
    for (let tries = 0; client.uploads.length < files || (await lookedFor()) < LOST_LOOKS_MAX; tries++) {
      expect(tries).toBeLessThan(10_000);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    // The last failures reach the cap's check after their upload; a moment for them, then the look.
    await new Promise((resolve) => setTimeout(resolve, 200));
    // Every upload has failed, and no look has ended: those looked for at once are the cap.
    expect(await lookedFor()).toBe(LOST_LOOKS_MAX);
    held.resolve();
    const run = await running;

    expect(run.code).toBe(1);
    const done = run.outcomes.filter((outcome) => outcome.status === 'done');
    const failed = run.outcomes.filter((outcome) => outcome.status === 'failed');
    // Each one looked for was found and collected (one failing late, on a loaded machine, may still
    // have joined after the first look freed room: it is then looked for too).
    expect(done).toHaveLength(await lookedFor());
    expect(done.length + failed.length).toBe(files);
    expect(failed.length).toBeGreaterThan(0);
    for (const outcome of failed)
      expect(outcome.reason).toMatch(/the next run looks for its job before sending again$/);
    // Each file sent once.
    expect(client.uploads).toHaveLength(files);
    expect(new Set(client.uploads).size).toBe(files);

    // None lost: the next run finds the jobs of those beyond the cap, and sends nothing.
    const later = FakeClient.after(client, async () => 'sync');
    const rerun = await batch(later, { clock });
    expect(rerun.code).toBe(0);
    expect(later.uploads).toEqual([]);
    expect(rerun.outcomes.filter((outcome) => outcome.status === 'done')).toHaveLength(failed.length);
    expect((await outputs()).length).toBe(files);
  });

  it('an upload whose answer was lost and which made no job fails, keeping `uploading`, after one look; the next run looks first', async () => {
    await inputs(1);
    const clock = fakeClock();
    const first = new FakeClient(async () => {
      throw errorForStatus(504, 'redacting f0.wav', '');
    });
    first.now = clock.now;
    const failed = await batch(first, { clock });
    expect(failed.code).toBe(1);
    expect(failed.outcomes).toEqual([
      expect.objectContaining({
        status: 'failed',
        reason: expect.stringMatching(
          /504.*the service may have taken it: the next run looks for its job before sending again$/,
        ),
      }),
    ]);
    expect(first.uploads).toEqual(['f0.wav']);
    expect(first.listCalls).toBe(1);
    expect((await recordsOf('in/f0.wav')).map((record) => record.event)).toEqual(['uploading', 'uploading']);

    // The service made its job after that look: the next run finds it, and sends nothing.
    const later = new FakeClient(async () => 'sync');
    const records = await recordsOf('in/f0.wav');
    later.addJob('job-late', String(records[0]?.uploadName), new Date(clock.now()).toISOString());
    const rerun = await batch(later, { clock });
    expect(rerun.code).toBe(0);
    expect(later.uploads).toEqual([]);
    expect(later.downloads).toEqual([expect.stringMatching(/^job-late:f0\.[0-9a-f]{8}\.redacted\.wav$/)]);
  });

  it('an upload whose answer was lost, its look meeting a failed listing, says what the look met', async () => {
    await inputs(1);
    const client = new FakeClient(async () => {
      throw errorForStatus(504, 'redacting f0.wav', '');
    });
    client.listFailure = new InternalServerError(
      'listing jobs: the service answered 500 Internal Server Error',
      500,
    );
    const failed = await batch(client);
    expect(failed.code).toBe(1);
    expect(failed.outcomes).toEqual([
      expect.objectContaining({
        status: 'failed',
        reason: expect.stringMatching(
          /504.*the next run looks for its job before sending again; its last look: listing jobs: the service answered 500 Internal Server Error$/,
        ),
      }),
    ]);
    expect(client.uploads).toEqual(['f0.wav']);
  });

  it('an upload refused for good (400) is journaled failed and sent again without a lookup', async () => {
    await inputs(1);
    const first = new FakeClient(async () => {
      throw errorForStatus(400, 'redacting f0.wav', '{"error":400,"message":"bad"}');
    });
    expect((await batch(first)).code).toBe(1);
    expect((await recordsOf('in/f0.wav')).map((record) => record.event)).toEqual(['uploading', 'failed']);
    const later = new FakeClient(async () => 'sync');
    expect((await batch(later)).code).toBe(0);
    expect(later.listCalls).toBe(0);
    expect(later.uploads).toEqual(['f0.wav']);
  });

  it('sends the file again, once, when no job lists its upload', async () => {
    await inputs(1);
    await uploadingRecord('in/f0.wav', T);
    const client = new FakeClient();
    client.addJob('job-other', 'other.wav', iso(T + 1000));
    const result = await batch(client);
    expect(result.code).toBe(0);
    expect(client.uploads).toEqual(['f0.wav']);
    expect(client.listCalls).toBe(1);
    expect(client.downloads).toEqual([]);
    expect((await recordsOf('in/f0.wav')).map((record) => record.event)).toEqual([
      'uploading',
      'uploading',
      'done',
    ]);
    // Done now: the next run neither looks up jobs nor sends anything.
    const again = await batch(client);
    expect(again.outcomes.map((line) => line.status)).toEqual(['skipped']);
    expect(client.listCalls).toBe(1);
    expect(client.uploads).toHaveLength(1);
  });

  it("its look-up's listing is the run's one: a job of an earlier run answered 404 is then gone without a second", async () => {
    await inputs(2);
    await uploadingRecord('in/f0.wav', T);
    await record('in/f1.wav', T, { event: 'submitted', jobId: 'job-gone' });
    // The service lists no job of f0's upload, and no longer knows job-gone.
    const client = new (class extends FakeClient {
      override async jobContent(jobId: string): Promise<JobContentItem[]> {
        if (jobId === 'job-gone') {
          this.polls++;
          throw new NotFoundError(`reading job ${jobId}: the service answered 404 Not Found`, 404);
        }
        return super.jobContent(jobId);
      }
    })();
    const result = await batch(client);
    expect(result.code, result.stderr).toBe(0);
    expect(client.uploads.sort()).toEqual(['f0.wav', 'f1.wav']);
    expect(result.stderr).toContain('job job-gone of an earlier run no longer exists at the service');
    // The look-up's listing parsed: the service was heard, and the gone job needed no listing more.
    expect(client.listCalls).toBe(1);
  });

  it('takes no job made before the upload started, less the clock-skew allowance', async () => {
    await inputs(2);
    await uploadingRecord('in/f0.wav', T);
    await uploadingRecord('in/f1.wav', T);
    const client = new FakeClient();
    client.addJob('job-old', 'f0.wav', iso(T - 10 * MINUTE)); // an earlier upload of another f0.wav
    client.addJob('job-skewed', 'f1.wav', iso(T - MINUTE)); // the service's clock is behind ours
    const result = await batch(client);
    expect(result.code).toBe(0);
    expect(client.uploads).toEqual(['f0.wav']);
    expect(client.downloads).toEqual(['job-skewed:f1.redacted.wav']);
    expect(await outputs()).toEqual(['f0.wav', 'f1.wav']);
  });

  it('gives each of two same-named uploads its own job, by their exact upload names', async () => {
    await mkdir(join(dir.path, 'in', 'a'), { recursive: true });
    await mkdir(join(dir.path, 'in', 'b'), { recursive: true });
    await writeFile(join(dir.path, 'in', 'a', 'call.wav'), makeWav(3));
    await writeFile(join(dir.path, 'in', 'b', 'call.wav'), makeWav(1));
    await uploadingRecord('in/a/call.wav', T, 3, 'call.aaaa0000.wav');
    await uploadingRecord('in/b/call.wav', T + 1000, 1, 'call.bbbb1111.wav');
    const client = new FakeClient();
    client.resultSeconds = (jobId) => (jobId === 'job-a' ? 3 : 1);
    // b's upload became a job first; a's started first: only the names tell them apart.
    client.addJob('job-b', 'call.bbbb1111.wav', iso(T + 2000));
    client.addJob('job-a', 'call.aaaa0000.wav', iso(T + 3000));
    const result = await batch(client);
    expect(result.code).toBe(0);
    expect(client.uploads).toEqual([]);
    expect(client.downloads.sort()).toEqual([
      'job-a:call.aaaa0000.redacted.wav',
      'job-b:call.bbbb1111.redacted.wav',
    ]);
    expect((await recordsOf('in/a/call.wav')).at(-1)).toMatchObject({ event: 'done', jobId: 'job-a' });
    expect((await recordsOf('in/b/call.wav')).at(-1)).toMatchObject({ event: 'done', jobId: 'job-b' });
  });

  it('sends a new file while jobs found for interrupted uploads wait, journaling each job once', async () => {
    // More found jobs than are waited for at once plus the queue to them, all listed before the new file.
    await inputs(330);
    const client = new FakeClient();
    for (let i = 0; i < 330; i++) {
      await uploadingRecord(`in/f${i}.wav`, T);
      client.addJob(`job-${i}`, `f${i}.wav`, iso(T + 1000));
    }
    await writeFile(join(dir.path, 'in', 'zz.wav'), makeWav(0.5));
    // The jobs finish only once the new file is uploaded: queued behind them, it never would be.
    client.ready = () => client.uploads.length > 0;
    const result = await batch(client, { clock: fakeClock(1), flags: { waitTimeout: '1000h' } });
    expect(result.code).toBe(0);
    expect(client.uploads).toEqual(['zz.wav']);
    expect(client.downloads).toHaveLength(330);
    const text = await readFile(journalPath(join(dir.path, 'out')), 'utf8');
    const events = new Map<string, string[]>();
    for (const line of text.split('\n').filter(Boolean)) {
      const { input, event, jobId } = JSON.parse(line) as JournalRecord;
      events.set(input, [...(events.get(input) ?? []), jobId ? `${event} ${jobId}` : event]);
    }
    for (let i = 0; i < 330; i++) {
      expect(events.get(await realpath(join(dir.path, 'in', `f${i}.wav`)))).toEqual([
        'uploading',
        `submitted job-${i}`,
        `done job-${i}`,
      ]);
    }
  });

  it('never takes a job the journal already gives to another input', async () => {
    await inputs(1);
    await mkdir(join(dir.path, 'in', 'sub'), { recursive: true });
    await writeFile(join(dir.path, 'in', 'sub', 'f0.wav'), makeWav(0.5));
    // in/f0.wav was cut short; in/sub/f0.wav, uploaded just after, is known to be job-1.
    await uploadingRecord('in/f0.wav', T);
    await record('in/sub/f0.wav', T + 2000, { event: 'submitted', jobId: 'job-1' });
    const client = new FakeClient();
    client.addJob('job-1', 'f0.wav', iso(T + 1000));
    const result = await batch(client);
    expect(result.code).toBe(0);
    expect(client.uploads).toEqual(['f0.wav']);
    expect(client.downloads).toEqual(['job-1:f0.redacted.wav']); // for in/sub/f0.wav
    expect((await recordsOf('in/sub/f0.wav')).at(-1)).toMatchObject({ event: 'done', jobId: 'job-1' });
    expect((await recordsOf('in/f0.wav')).at(-1)).toMatchObject({ event: 'done', via: 'sync' });
  });

  it('warns and sends the file again when the jobs cannot be listed', async () => {
    await inputs(1);
    await uploadingRecord('in/f0.wav', T);
    const client = new FakeClient();
    client.listFailure = new InternalServerError(
      'listing jobs: the service answered 500 Internal Server Error',
      500,
    );
    const result = await batch(client);
    expect(result.code).toBe(0);
    expect(result.stderr).toMatch(/warning: could not list the service's jobs .*500/);
    expect(client.uploads).toEqual(['f0.wav']);
    expect(result.outcomes.map((line) => line.status)).toEqual(['done']);
  });

  it('stops at the listing when the token is refused: one request, exit 3, nothing sent', async () => {
    await inputs(3);
    await uploadingRecord('in/f0.wav', T);
    const client = new FakeClient();
    client.listFailure = new PermissionDeniedError(
      'listing jobs: the service answered 403',
      403,
      undefined,
      3,
    );
    const result = await batch(client);
    expect(result.code).toBe(3);
    expect(client.listCalls).toBe(1);
    expect(client.uploads).toEqual([]);
    expect(result.outcomes.every((line) => line.status === 'pending')).toBe(true);
    // Still unknown: the next run looks again.
    expect((await recordsOf('in/f0.wav')).map((record) => record.event)).toEqual(['uploading']);
  });

  it('--dry-run shows it as would-send, saying it is looked up first, and asks nothing', async () => {
    await inputs(2);
    await uploadingRecord('in/f0.wav', T);
    const client = new FakeClient();
    const result = await batch(client, { flags: { dryRun: true } });
    expect(result.code).toBe(0);
    expect(client.listCalls).toBe(0);
    // Files are checked concurrently: the order of their lines is not fixed.
    const byInput = [...result.outcomes].sort((a, b) => String(a.input).localeCompare(String(b.input)));
    expect(byInput).toEqual([
      {
        input: 'in/f0.wav',
        output: 'out/f0.wav',
        status: 'would-send',
        reason: expect.stringMatching(/interrupted; it will be looked up first/),
      },
      { input: 'in/f1.wav', output: 'out/f1.wav', status: 'would-send' },
    ]);
  });
});
