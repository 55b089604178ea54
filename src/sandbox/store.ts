/**
 * Jobs and their files. Each job lives in `<root>/jobs/<jobId>/`: `job.json` (rewritten atomically:
 * temporary file, then rename) and the job's files under safe names of the sandbox's choosing, so
 * a file name from a client never becomes a path. Uploads in progress go to `<root>/tmp/`. Every write
 * of a job's data waits for the store's guard first: a sandbox whose data folder another sandbox took
 * over writes nothing more there (data-lock.ts).
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import * as v from 'valibot';
import { makeFolder } from '../fs/make-folder.js';
import { PRIVATE_DIR_MODE } from '../fs/private-dir.js';

const StoredFileSchema = v.object({
  id: v.pipe(v.number(), v.integer()),
  file_name: v.string(),
  audio_duration: v.number(),
  created_at: v.string(),
  disk: v.pipe(v.string(), v.regex(/^[a-z0-9.-]+$/)),
  contentType: v.string(),
  role: v.picklist(['source', 'result']),
});
export type StoredFile = v.InferOutput<typeof StoredFileSchema>;

const RedactionStateSchema = v.object({
  status: v.picklist(['processing', 'done', 'failed']),
  fields: v.record(v.string(), v.string()),
  seed: v.number(),
  sourceDurationSec: v.number(),
  /** Epoch milliseconds from which the result may be listed (the simulated processing time). */
  readyAt: v.number(),
  error: v.optional(v.string()),
});
export type RedactionState = v.InferOutput<typeof RedactionStateSchema>;

const JobRecordSchema = v.object({
  job_id: v.pipe(v.string(), v.uuid()),
  token: v.string(),
  created_at: v.string(),
  files: v.array(StoredFileSchema),
  redaction: v.optional(RedactionStateSchema),
});
export type JobRecord = v.InferOutput<typeof JobRecordSchema>;

/**
 * Says whether the store may still write the data folder: rejects once the folder's lock is another
 * sandbox's. Resolves at once in the common case.
 */
export type StoreGuard = () => Promise<void>;

/** A job content item as the API lists it. */
export interface ContentItem {
  id: number;
  job_id: string;
  file_name: string;
  audio_duration: number;
  created_at: string;
}

export class JobStore {
  readonly #jobs = new Map<string, JobRecord>();
  readonly #writes = new Map<string, Promise<void>>();
  #nextFileId = 1;
  #closed = false;

  private constructor(
    readonly root: string,
    private readonly guard: StoreGuard,
  ) {}

  /** Opens (or creates) a store under `root`, loading the jobs already there. */
  static async open(
    root: string,
    warn: (line: string) => void,
    guard: StoreGuard = async () => {},
  ): Promise<JobStore> {
    const store = new JobStore(root, guard);
    await rm(store.tmpDir, { recursive: true, force: true });
    // Each flushed into its parent (make-folder.ts): a power loss must not take a job the API answered.
    await makeFolder(store.tmpDir, PRIVATE_DIR_MODE);
    await makeFolder(join(root, 'jobs'), PRIVATE_DIR_MODE);
    const loaded: JobRecord[] = [];
    for (const entry of await readdir(join(root, 'jobs'), { withFileTypes: true })) {
      if (!entry.isDirectory()) continue;
      const file = join(root, 'jobs', entry.name, 'job.json');
      try {
        const job = v.parse(JobRecordSchema, JSON.parse(await readFile(file, 'utf8')));
        if (job.job_id !== entry.name) throw new Error('job id does not match its folder');
        loaded.push(job);
      } catch (error) {
        warn(`ignoring job folder ${entry.name}: ${(error as Error).message}`);
      }
    }
    loaded.sort((a, b) => a.created_at.localeCompare(b.created_at));
    for (const job of loaded) {
      store.#jobs.set(job.job_id, job);
      for (const file of job.files) store.#nextFileId = Math.max(store.#nextFileId, file.id + 1);
    }
    return store;
  }

  get tmpDir(): string {
    return join(this.root, 'tmp');
  }

  /** A fresh path under the temporary folder. */
  tmpPath(prefix: string): string {
    return join(this.tmpDir, `${prefix}-${randomBytes(8).toString('hex')}`);
  }

  jobDir(jobId: string): string {
    return join(this.root, 'jobs', jobId);
  }

  diskPath(job: JobRecord, file: StoredFile): string {
    return join(this.jobDir(job.job_id), file.disk);
  }

  get(jobId: string): JobRecord | undefined {
    return this.#jobs.get(jobId);
  }

  /** A job only when it belongs to `token`: another token's job is as good as unknown. */
  getOwned(jobId: string, token: string): JobRecord | undefined {
    const job = this.#jobs.get(jobId);
    return job && job.token === token ? job : undefined;
  }

  listFor(token: string): JobRecord[] {
    return [...this.#jobs.values()].filter((job) => job.token === token);
  }

  all(): JobRecord[] {
    return [...this.#jobs.values()];
  }

  async #mayWrite(): Promise<void> {
    if (this.#closed) throw new Error('the sandbox is shutting down');
    await this.guard();
  }

  async create(token: string, redaction?: RedactionState): Promise<JobRecord> {
    await this.#mayWrite();
    const job: JobRecord = {
      job_id: randomUUID(),
      token,
      created_at: new Date().toISOString(),
      files: [],
      ...(redaction ? { redaction } : {}),
    };
    await makeFolder(this.jobDir(job.job_id), PRIVATE_DIR_MODE);
    this.#jobs.set(job.job_id, job);
    await this.save(job);
    return job;
  }

  /** Moves `fromPath` (on the same filesystem) into the job as a new file, and saves the job. */
  async addFile(
    job: JobRecord,
    fromPath: string,
    file: Omit<StoredFile, 'id' | 'created_at'>,
    createdAt = new Date(),
  ): Promise<StoredFile> {
    await this.#mayWrite();
    const stored: StoredFile = { ...file, id: this.#nextFileId++, created_at: createdAt.toISOString() };
    await rename(fromPath, join(this.jobDir(job.job_id), file.disk));
    job.files = [...job.files.filter((f) => f.disk !== file.disk), stored];
    await this.save(job);
    return stored;
  }

  /** The files a client may see now: a result only once its simulated processing time has passed. */
  visibleFiles(job: JobRecord, now: number): StoredFile[] {
    const ready = !job.redaction || (job.redaction.status === 'done' && job.redaction.readyAt <= now);
    return job.files.filter((file) => file.role === 'source' || ready);
  }

  contentOf(job: JobRecord, now: number): ContentItem[] {
    return this.visibleFiles(job, now).map((file) => ({
      id: file.id,
      job_id: job.job_id,
      file_name: file.file_name,
      audio_duration: file.audio_duration,
      created_at: file.created_at,
    }));
  }

  /** Jobs whose redaction did not finish (the sandbox stopped during it). */
  interrupted(): JobRecord[] {
    return this.all().filter((job) => job.redaction?.status === 'processing');
  }

  /** Writes `job.json` atomically; writes of one job are serialized, none after close. */
  save(job: JobRecord): Promise<void> {
    const previous = this.#writes.get(job.job_id) ?? Promise.resolve();
    const closedAtCall = this.#closed;
    const next = previous.then(async () => {
      if (closedAtCall) return;
      await this.guard();
      const target = join(this.jobDir(job.job_id), 'job.json');
      const temp = `${target}.${randomBytes(4).toString('hex')}.tmp`;
      await writeFile(temp, `${JSON.stringify(job, null, 2)}\n`);
      await rename(temp, target);
    });
    const settled = next.catch(() => {});
    this.#writes.set(job.job_id, settled);
    void settled.then(() => {
      if (this.#writes.get(job.job_id) === settled) this.#writes.delete(job.job_id);
    });
    return next;
  }

  /**
   * Takes no more jobs or files and waits for pending writes; later saves do nothing (the folder
   * may be about to be removed).
   */
  async close(): Promise<void> {
    this.#closed = true;
    await Promise.all(this.#writes.values());
  }
}
