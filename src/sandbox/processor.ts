/** Background redaction of asynchronous jobs, a few at a time, in worker threads. */
import { rm } from 'node:fs/promises';
import { setTimeout as delay } from 'node:timers/promises';
import { runRedactionInWorker } from '../audio/index.js';
import { resultNameFor } from './naming.js';
import type { Recorder } from './recorder.js';
import type { JobRecord, JobStore } from './store.js';

export const OUTPUT_SAMPLE_RATE = 16_000;

export class Processor {
  readonly #queue: JobRecord[] = [];
  readonly #inFlight = new Set<Promise<void>>();
  #closed = false;

  constructor(
    private readonly store: JobStore,
    private readonly recorder: Recorder,
    private readonly log: { debug(line: string): void; warn(line: string): void },
    readonly concurrency = 2,
  ) {}

  enqueue(job: JobRecord): void {
    if (this.#closed) return;
    this.#queue.push(job);
    this.#pump();
  }

  #pump(): void {
    while (!this.#closed && this.#inFlight.size < this.concurrency && this.#queue.length > 0) {
      const job = this.#queue.shift()!;
      const running = this.#process(job).finally(() => {
        this.#inFlight.delete(running);
        this.recorder.stats.processing = this.#inFlight.size;
        this.#pump();
      });
      this.#inFlight.add(running);
      this.recorder.stats.processing = this.#inFlight.size;
    }
  }

  async #process(job: JobRecord): Promise<void> {
    const state = job.redaction;
    if (!state) return;
    const source = job.files.find((file) => file.role === 'source');
    const output = `${this.store.tmpPath('result')}.wav`;
    const started = Date.now();
    try {
      if (!source) throw new Error('the job has no source file');
      const outcome = await runRedactionInWorker(this.store.diskPath(job, source), output, {
        ...state.fields,
        seed: state.seed,
      });
      if (this.#closed) return;
      await this.store.addFile(
        job,
        output,
        {
          file_name: resultNameFor(source.file_name),
          audio_duration: outcome.outputSamples / OUTPUT_SAMPLE_RATE,
          disk: 'result.wav',
          contentType: 'audio/wav',
          role: 'result',
        },
        new Date(Math.max(Date.now(), state.readyAt)),
      );
      state.status = 'done';
      await this.store.save(job);
      this.log.debug(`job ${job.job_id}: redacted in ${Date.now() - started}ms`);
    } catch (error) {
      if (this.#closed) return;
      state.status = 'failed';
      state.error = (error as Error).message;
      await this.store.save(job).catch(() => {});
      this.log.warn(`job ${job.job_id}: redaction failed: ${(error as Error).message}`);
    } finally {
      await rm(output, { force: true }).catch(() => {});
    }
  }

  /**
   * Takes no more work; the redactions in progress end without a word (their results dropped), and
   * are redone at the next start on the same data dir.
   */
  stop(): void {
    this.#closed = true;
    this.#queue.length = 0;
  }

  /**
   * Takes no more work and waits (at most `timeoutMs`) for redactions in progress; their results
   * are then dropped, and a job interrupted this way is redone at the next start on the same data dir.
   */
  async close(timeoutMs: number): Promise<void> {
    this.stop();
    if (this.#inFlight.size === 0) return;
    const timer = new AbortController();
    await Promise.race([
      Promise.allSettled(this.#inFlight),
      delay(timeoutMs, undefined, { signal: timer.signal }).catch(() => {}),
    ]);
    timer.abort();
  }
}
