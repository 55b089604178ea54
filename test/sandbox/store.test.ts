import { existsSync } from 'node:fs';
import { readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { startSandbox } from '../../src/sandbox/index.js';
import { JobStore } from '../../src/sandbox/store.js';
import {
  call,
  contentOf,
  fixture,
  isWav,
  OTHER_TOKEN,
  redact,
  TOKEN,
  testDir,
  useCleanup,
  waitForResult,
} from '../helpers/sandbox-api.js';

useCleanup();

const start = (dataDir: string) =>
  startSandbox({ port: 0, tokens: [TOKEN, OTHER_TOKEN], dataDir, syncLimitSec: 0, speed: 1000 });

async function download(base: string, jobId: string, fileName: string) {
  const answer = await call(base, 'POST', `/api/jobs/${jobId}/files/download-url`, { json: { fileName } });
  expect(answer.status).toBe(200);
  const signed = new URL((answer.json() as { signedUrl: string }).signedUrl);
  return call(signed.origin, 'GET', `${signed.pathname}${signed.search}`, { token: null });
}

describe('--data-dir', () => {
  test('jobs, their content and their files survive a restart', async () => {
    const dataDir = await testDir();
    const first = await start(dataDir);
    let jobId: string;
    let emptyJob: string;
    let before: unknown;
    try {
      emptyJob = ((await call(first.baseUrl, 'POST', '/api/jobs')).json() as { job_id: string }).job_id;
      const accepted = await redact(first.baseUrl, fixture('speech-16bit.wav'), { fileName: 'call.wav' });
      jobId = (accepted.json() as { job_id: string }).job_id;
      await waitForResult(first.baseUrl, jobId, 'call.wav');
      before = await contentOf(first.baseUrl, jobId);
    } finally {
      await first.close();
    }
    expect(existsSync(dataDir)).toBe(true);

    const second = await start(dataDir);
    try {
      const jobs = (await call(second.baseUrl, 'GET', '/api/jobs')).json() as {
        jobs: Array<{ job_id: string }>;
      };
      expect(jobs.jobs.map((job) => job.job_id).sort()).toEqual([emptyJob, jobId].sort());
      expect(await contentOf(second.baseUrl, jobId)).toEqual(before);
      // Ownership survives too.
      expect(
        (await call(second.baseUrl, 'GET', `/api/jobs/${jobId}/content`, { token: OTHER_TOKEN })).status,
      ).toBe(404);

      const file = await download(second.baseUrl, jobId, 'call.redacted.wav');
      expect(file.status).toBe(200);
      expect(isWav(file.body)).toBe(true);
    } finally {
      await second.close();
    }
  });

  test('a job whose processing was interrupted is processed again at the next start', async () => {
    const dataDir = await testDir();
    const first = await start(dataDir);
    let jobId: string;
    try {
      const accepted = await redact(first.baseUrl, fixture('speech-16bit.wav'), { fileName: 'call.wav' });
      jobId = (accepted.json() as { job_id: string }).job_id;
      await waitForResult(first.baseUrl, jobId, 'call.wav');
    } finally {
      await first.close();
    }
    // Rewind the journal to "still processing", as if the sandbox had stopped mid-way.
    const jobFile = join(dataDir, 'jobs', jobId, 'job.json');
    const job = JSON.parse(await readFile(jobFile, 'utf8'));
    job.redaction.status = 'processing';
    job.files = job.files.filter((file: { role: string }) => file.role === 'source');
    await writeFile(jobFile, JSON.stringify(job));
    await rm(join(dataDir, 'jobs', jobId, 'result.wav'));

    const second = await start(dataDir);
    try {
      const result = await waitForResult(second.baseUrl, jobId, 'call.wav');
      expect(result.file_name).toBe('call.redacted.wav');
      expect((await download(second.baseUrl, jobId, 'call.redacted.wav')).status).toBe(200);
    } finally {
      await second.close();
    }
  });

  test('a corrupt job file is skipped, not fatal', async () => {
    const dataDir = await testDir();
    const first = await start(dataDir);
    await call(first.baseUrl, 'POST', '/api/jobs');
    await first.close();
    const [folder] = await readdir(join(dataDir, 'jobs'));
    await writeFile(join(dataDir, 'jobs', folder!, 'job.json'), '{ not json');

    const warnings: string[] = [];
    const second = await startSandbox({
      port: 0,
      tokens: [TOKEN],
      dataDir,
      onWarning: (line) => warnings.push(line),
    });
    try {
      expect((await call(second.baseUrl, 'GET', '/api/jobs')).json()).toEqual({ jobs: [] });
      expect(warnings.join('\n')).toContain(folder);
    } finally {
      await second.close();
    }
  });

  test('a generated token is kept in the folder: a restart accepts it, and the jobs it made are its again', async () => {
    // Each restart generated a new token, so every job the folder kept was another token's (404).
    const dataDir = await testDir();
    const first = await startSandbox({ port: 0, dataDir });
    const token = first.tokens[0] as string;
    let jobId: string;
    try {
      jobId = ((await call(first.baseUrl, 'POST', '/api/jobs', { token })).json() as { job_id: string })
        .job_id;
    } finally {
      await first.close();
    }
    expect((await stat(join(dataDir, 'token'))).mode & 0o777).toBe(0o600);
    const second = await startSandbox({ port: 0, dataDir });
    try {
      expect(second.tokens).toEqual([token]);
      const listed = await call(second.baseUrl, 'GET', '/api/jobs', { token });
      expect((listed.json() as { jobs: { job_id: string }[] }).jobs.map((job) => job.job_id)).toEqual([
        jobId,
      ]);
    } finally {
      await second.close();
    }
    // Tokens given on the command line are the ones accepted: the kept one is not added to them.
    const third = await startSandbox({ port: 0, dataDir, tokens: [OTHER_TOKEN] });
    try {
      expect(third.tokens).toEqual([OTHER_TOKEN]);
    } finally {
      await third.close();
    }
  });

  test('without --data-dir, the temporary folder is removed on close', async () => {
    const sandbox = await startSandbox({ port: 0, tokens: [TOKEN] });
    expect(existsSync(sandbox.dataDir)).toBe(true);
    await sandbox.close();
    expect(existsSync(sandbox.dataDir)).toBe(false);
    await sandbox.close(); // a second close is harmless
  });
});

describe('the store of a sandbox whose data folder was taken over', () => {
  test('writes nothing of a job once its guard refuses: no job made, no file moved in, no job saved', async () => {
    const dir = await testDir();
    let takenOver = false;
    const store = await JobStore.open(
      dir,
      () => {},
      async () => {
        if (takenOver) throw new Error('another sandbox took the data folder over');
      },
    );
    const job = await store.create(TOKEN);
    takenOver = true;
    await expect(store.create(TOKEN)).rejects.toThrow(/took the data folder over/);
    const upload = join(dir, 'tmp', 'upload');
    await writeFile(upload, 'bytes');
    await expect(
      store.addFile(job, upload, {
        file_name: 'a.wav',
        audio_duration: 1,
        disk: 'source.wav',
        contentType: 'audio/wav',
        role: 'source',
      }),
    ).rejects.toThrow(/took the data folder over/);
    const saved = await readFile(join(store.jobDir(job.job_id), 'job.json'), 'utf8');
    job.files = [];
    job.created_at = '2000-01-01T00:00:00.000Z';
    await expect(store.save(job)).rejects.toThrow(/took the data folder over/);
    expect(await readdir(join(dir, 'jobs'))).toEqual([job.job_id]);
    expect(await readdir(store.jobDir(job.job_id))).toEqual(['job.json']);
    expect(await readFile(join(store.jobDir(job.job_id), 'job.json'), 'utf8')).toBe(saved);
    expect(existsSync(upload)).toBe(true);
    await store.close();
  });
});
