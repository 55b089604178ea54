/** Background redaction of asynchronous jobs: results filed into the job, failures recorded, shutdown. */
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { OUTPUT_SAMPLE_RATE, Processor } from '../../src/sandbox/processor.js';
import { Recorder } from '../../src/sandbox/recorder.js';
import { type JobRecord, JobStore, type RedactionState } from '../../src/sandbox/store.js';
import { fixture, tempDirPerTest } from '../helpers/cli.js';
import { pcm16Wav, readPcm16Wav, sine } from '../helpers/signal.js';

const scratch = tempDirPerTest('vredact-sandbox-processor-');
/** Generous: a redaction may take a few seconds on a busy machine; the wait ends once it is over. */
const WAIT = { timeout: 50_000, interval: 20 };

interface Log {
  debug: string[];
  warn: string[];
}

async function setup(concurrency?: number) {
  const store = await JobStore.open(join(scratch.path, 'data'), () => {});
  const recorder = new Recorder();
  const log: Log = { debug: [], warn: [] };
  const processor = new Processor(
    store,
    recorder,
    { debug: (line) => log.debug.push(line), warn: (line) => log.warn.push(line) },
    concurrency,
  );
  return { store, recorder, log, processor };
}

function redactionState(readyAt: number): RedactionState {
  return {
    status: 'processing',
    fields: { gender: 'opposite', age: 'senior-adult' },
    seed: 7,
    sourceDurationSec: 0.5,
    readyAt,
  };
}

/** A job whose source is `bytes`, uploaded under `fileName`. */
async function jobWithSource(
  store: JobStore,
  fileName: string,
  bytes: Buffer,
  readyAt = 0,
): Promise<JobRecord> {
  const job = await store.create('token', redactionState(readyAt));
  const upload = store.tmpPath('upload');
  await writeFile(upload, bytes);
  await store.addFile(job, upload, {
    file_name: fileName,
    audio_duration: 0.5,
    disk: 'source.wav',
    contentType: 'audio/wav',
    role: 'source',
  });
  return job;
}

const halfSecond = () => pcm16Wav(sine(220, 0.5, 16000, 0.4), 16000);
const settled = (job: JobRecord) => expect(job.redaction?.status).not.toBe('processing');

describe('Processor', () => {
  it('redacts a job in the background and files the result into it, named after the source', async () => {
    const { store, log, processor, recorder } = await setup();
    const readyAt = Date.now() + 3_600_000;
    const job = await jobWithSource(store, 'calls/monday.wav', halfSecond(), readyAt);
    processor.enqueue(job);
    expect(recorder.stats.processing).toBe(1);
    await vi.waitFor(() => settled(job), WAIT);
    await vi.waitFor(() => expect(recorder.stats.processing).toBe(0), WAIT);

    expect(job.redaction?.status).toBe('done');
    const result = job.files.find((file) => file.role === 'result');
    expect(result).toMatchObject({
      file_name: 'calls/monday.redacted.wav',
      disk: 'result.wav',
      contentType: 'audio/wav',
    });
    // Listed from the simulated end of processing, not from when the worker finished.
    expect(result!.created_at).toBe(new Date(readyAt).toISOString());

    const wav = await readPcm16Wav(store.diskPath(job, result!));
    expect(wav).toMatchObject({
      formatTag: 1,
      channels: 1,
      sampleRate: OUTPUT_SAMPLE_RATE,
      bitsPerSample: 16,
    });
    expect(result!.audio_duration).toBe(wav.samples.length / OUTPUT_SAMPLE_RATE);
    expect(result!.audio_duration).toBeCloseTo(0.5, 2);

    // The saved job.json says the same, and no temporary output is left behind.
    const saved = JSON.parse(await readFile(join(store.jobDir(job.job_id), 'job.json'), 'utf8')) as JobRecord;
    expect(saved.redaction?.status).toBe('done');
    expect(saved.files.map((file) => file.file_name)).toEqual([
      'calls/monday.wav',
      'calls/monday.redacted.wav',
    ]);
    expect(await readdir(store.tmpDir)).toEqual([]);
    expect(log.warn).toEqual([]);
    expect(log.debug).toEqual([expect.stringMatching(new RegExp(`^job ${job.job_id}: redacted in \\d+ms$`))]);
  });

  it('dates a result that is ready late no earlier than the moment it was filed', async () => {
    const { store, processor } = await setup();
    const before = Date.now();
    const job = await jobWithSource(store, 'x.wav', halfSecond(), 1);
    processor.enqueue(job);
    await vi.waitFor(() => settled(job), WAIT);
    const result = job.files.find((file) => file.role === 'result')!;
    expect(Date.parse(result.created_at)).toBeGreaterThanOrEqual(before);
  });

  it('marks a job whose source is not audio as failed, with the reason, and files nothing', async () => {
    const { store, log, processor, recorder } = await setup();
    const job = await jobWithSource(store, 'notes.wav', Buffer.from('this is not a recording'));
    processor.enqueue(job);
    await vi.waitFor(() => settled(job), WAIT);
    // Saved and cleaned up by the time its slot is given back.
    await vi.waitFor(() => expect(recorder.stats.processing).toBe(0), WAIT);
    expect(job.redaction).toMatchObject({ status: 'failed', error: 'not a WAV or MP3 file' });
    expect(job.files.map((file) => file.role)).toEqual(['source']);
    expect(log.warn).toEqual([`job ${job.job_id}: redaction failed: not a WAV or MP3 file`]);
    const saved = JSON.parse(await readFile(join(store.jobDir(job.job_id), 'job.json'), 'utf8')) as JobRecord;
    expect(saved.redaction).toMatchObject({ status: 'failed', error: 'not a WAV or MP3 file' });
    expect(await readdir(store.tmpDir)).toEqual([]);
  });

  it('marks a job without a source file as failed', async () => {
    const { store, processor } = await setup();
    const job = await store.create('token', redactionState(0));
    processor.enqueue(job);
    await vi.waitFor(() => settled(job), WAIT);
    expect(job.redaction).toMatchObject({ status: 'failed', error: 'the job has no source file' });
  });

  it('leaves a job without a redaction alone', async () => {
    const { store, processor, recorder } = await setup();
    const job = await store.create('token');
    processor.enqueue(job);
    await vi.waitFor(() => expect(recorder.stats.processing).toBe(0), WAIT);
    expect(job.redaction).toBeUndefined();
    expect(job.files).toEqual([]);
  });

  it('runs at most `concurrency` redactions at once and does all the others after', async () => {
    const { store, processor, recorder } = await setup(2);
    const jobs: JobRecord[] = [];
    for (let i = 0; i < 4; i++) jobs.push(await jobWithSource(store, `c${i}.wav`, halfSecond()));
    const seen: number[] = [];
    for (const job of jobs) {
      processor.enqueue(job);
      seen.push(recorder.stats.processing);
    }
    expect(seen).toEqual([1, 2, 2, 2]);
    // A job's status is set before its slot is given back: both are waited for.
    await vi.waitFor(() => {
      jobs.forEach(settled);
      expect(recorder.stats.processing).toBe(0);
    }, WAIT);
    expect(jobs.map((job) => job.redaction?.status)).toEqual(['done', 'done', 'done', 'done']);
  });

  it('once closed, takes no more work and drops the result of a redaction in progress', async () => {
    const { store, processor, recorder } = await setup(1);
    const source = await readFile(fixture('speech-16bit.wav'));
    const running = await jobWithSource(store, 'running.wav', source);
    const queued = await jobWithSource(store, 'queued.wav', source);
    processor.enqueue(running);
    processor.enqueue(queued);
    expect(recorder.stats.processing).toBe(1);
    await processor.close(60_000);
    const late = await jobWithSource(store, 'late.wav', source);
    processor.enqueue(late);
    // All three stay "processing", so the next start on the same data dir redoes them.
    for (const job of [running, queued, late]) {
      expect(job.redaction?.status).toBe('processing');
      expect(job.files.map((file) => file.role)).toEqual(['source']);
    }
    expect(
      store
        .interrupted()
        .map((job) => job.job_id)
        .sort(),
    ).toEqual([running.job_id, queued.job_id, late.job_id].sort());
    expect(await readdir(store.tmpDir)).toEqual([]);
  });

  it('closes at once when nothing is running', async () => {
    const { processor } = await setup();
    await processor.close(600_000);
  });
});
